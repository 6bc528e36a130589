// Turns a sortie.dryrun_input/1 into the local scheduler's sortie.dryrun/1: one fully resolved
// launch (argv, env additions, cwd, log paths) per replica, or an error naming the role and field
// the local scheduler cannot honour.
#ifndef SORTIE_LOCAL_DRYRUN_BUILDER_HPP
#define SORTIE_LOCAL_DRYRUN_BUILDER_HPP

#include <string>
#include <string_view>

#include "run_options.hpp"

namespace sortie::local {

struct SchedulerContext {
  std::string scheduler_name;  // "local_cwd" or "local_dir"
  ImageMode mode = ImageMode::kCwd;
  std::string session;
  std::string state_dir;
};

std::string build_dryrun(std::string_view input, const SchedulerContext& context);

// Ids become directory names: [A-Za-z0-9._-], not starting with '.'. Throws naming `what`.
void check_path_safe_id(std::string_view id, std::string_view what);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_DRYRUN_BUILDER_HPP
