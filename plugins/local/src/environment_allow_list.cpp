#include "environment_allow_list.hpp"

#include <algorithm>
#include <sortie/error.hpp>

extern char** environ;

namespace sortie::local {

void check_env_allow_patterns(const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) {
    const size_t star = pattern.find('*');
    const bool star_only_at_end = star == std::string::npos || star == pattern.size() - 1;
    if (pattern.empty() || pattern.find('=') != std::string::npos || !star_only_at_end) {
      throw Error::invalid_argument("run option 'env_allow': '" + pattern +
                                    "' is neither a variable name nor a prefix ending in '*'");
    }
  }
}

bool env_allowed(std::string_view name, const std::vector<std::string>& patterns) {
  if (name.starts_with("SORTIE_")) return true;
  for (const std::string_view pattern : patterns) {
    if (pattern.ends_with('*') ? name.starts_with(pattern.substr(0, pattern.size() - 1))
                               : name == pattern) {
      return true;
    }
  }
  return false;
}

std::vector<std::pair<std::string, std::string>> allowed_environment(
    const std::vector<std::string>& patterns) {
  std::vector<std::pair<std::string, std::string>> allowed;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos || !env_allowed(text.substr(0, equals), patterns)) {
      continue;
    }
    allowed.emplace_back(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  // Sorted, so that a dry run shows the same listing however the environment was ordered.
  std::sort(allowed.begin(), allowed.end());
  return allowed;
}

}  // namespace sortie::local
