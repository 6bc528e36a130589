// File: sortie/registry/suggest.hpp
//
// The one "did you mean" of sortie: every kind of name (named resources, components,
// schedulers, spec and config keys, run options) is matched and worded alike, so
// `sortie resources gpu.smal`, `sortie run -h NAME` and a spec's typo suggest the same way.
#ifndef SORTIE_REGISTRY_SUGGEST_HPP
#define SORTIE_REGISTRY_SUGGEST_HPP

#include <string>
#include <string_view>
#include <vector>

namespace sortie::registry {

// Candidates close to `name`, closest first (at most three): within an edit distance of a third
// of its length (at least 2), or one a prefix of the other (both at least 3 long).
std::vector<std::string> close_names(std::string_view name,
                                     const std::vector<std::string>& candidates);

// " (did you mean 'x'?)", " (did you mean 'x' or 'y'?)", or "" when nothing is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace sortie::registry

#endif  // SORTIE_REGISTRY_SUGGEST_HPP
