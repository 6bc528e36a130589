// What happens to an app whose supervisor never got going: written by whichever process sees
// it first (the supervisor's starter process, or the plugin when it reaps a starter that died),
// so no app stays SUBMITTED forever.
#ifndef SORTIE_LOCAL_START_FAILURE_HPP
#define SORTIE_LOCAL_START_FAILURE_HPP

#include <string>

namespace sortie::local {

// Marks the app FAILED with `msg` unless a supervisor has recorded itself or the app already
// ended, and wakes its waiters. Never throws: it runs on failure paths. Returns why the failure
// could not be recorded (e.g. no space left for state.json), or "".
std::string record_start_failure(const std::string& app_dir, const std::string& msg) noexcept;

// The file whose presence asks a supervisor that has not recorded itself yet to cancel the app
// as soon as it does (see LocalScheduler::cancel).
std::string cancel_request_path(const std::string& app_dir);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_START_FAILURE_HPP
