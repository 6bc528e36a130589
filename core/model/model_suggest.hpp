// File: core/model/model_suggest.hpp (private)
//
// "Did you mean" hints and list formatting shared by the model's parsers, so every typo error
// reads the same.
#ifndef SORTIE_CORE_SRC_MODEL_SUGGEST_HPP
#define SORTIE_CORE_SRC_MODEL_SUGGEST_HPP

#include <string>
#include <string_view>
#include <vector>

namespace sortie::core {

// Candidates within a small edit distance of `name`, closest first (at most three).
std::vector<std::string> close_names(std::string_view name,
                                     const std::vector<std::string>& candidates);

// " (did you mean 'x'?)", " (did you mean 'x' or 'y'?)", or "" when nothing is close.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

// "'a', 'b', 'c'"
std::string quoted_list(const std::vector<std::string>& items);

}  // namespace sortie::core

#endif  // SORTIE_CORE_SRC_MODEL_SUGGEST_HPP
