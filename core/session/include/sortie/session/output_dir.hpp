// File: core/session/include/sortie/session/output_dir.hpp
//
// Where an app writes (docs/payloads.md P-1.1): the host chooses one directory per app, or per
// work unit of an experiment, sends it as the AppDef's output_dir and creates it, mode 0700,
// before the scheduler runs anything. Concurrent apps never share one, and every launch of a
// work unit (its attempts and re-runs) gets the same one, so a re-run resumes its checkpoints.
#ifndef SORTIE_SESSION_OUTPUT_DIR_HPP
#define SORTIE_SESSION_OUTPUT_DIR_HPP

#include <cstdint>
#include <string>

namespace sortie::session {

// $SORTIE_OUTPUT_ROOT, else <state_dir>/outputs.
std::string output_root();

// <root>/apps/<scheduler>/<session>/<app_id>: one app's.
std::string app_output_dir(const std::string& scheduler, const std::string& session,
                           const std::string& app_id);

// <root>/experiments/<experiment_id>/<work_unit_id>: a work unit's, the same in its every launch.
std::string work_unit_output_dir(int64_t experiment_id, int work_unit_id);

// Creates `dir` and its missing parents, each mode 0700; an existing directory is kept as it is.
// Throws FAILED_PRECONDITION naming the path when it cannot, or when it exists and is not a
// directory.
void create_output_dir(const std::string& dir);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_OUTPUT_DIR_HPP
