// The run option env_allow: which of the submitter's environment variables a replica receives
// when not all of them should (docs/local-scheduler.md, "Environment").
#ifndef SORTIE_LOCAL_ENVIRONMENT_ALLOW_LIST_HPP
#define SORTIE_LOCAL_ENVIRONMENT_ALLOW_LIST_HPP

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sortie::local {

// Refuses an entry that is neither a variable name nor a prefix ending in '*' (INVALID_ARGUMENT
// naming the run option and the entry).
void check_env_allow_patterns(const std::vector<std::string>& patterns);

// Whether `name` is listed: equal to a pattern, or starting with a pattern's text before its
// trailing '*'. SORTIE_* always passes: those configure sortie itself (the supervisor reads
// SORTIE_LOCAL_CONTAINMENT, dryrun SORTIE_GPU_DEVICES).
bool env_allowed(std::string_view name, const std::vector<std::string>& patterns);

// The variables of this process's environment that env_allowed() lets through, sorted by name.
std::vector<std::pair<std::string, std::string>> allowed_environment(
    const std::vector<std::string>& patterns);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_ENVIRONMENT_ALLOW_LIST_HPP
