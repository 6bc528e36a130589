// File: core/model/model_suggest.hpp (private)
//
// "Did you mean" hints (the registry's, for every kind of name) and list formatting shared by the
// model's parsers, so every typo error reads the same.
#ifndef SORTIE_MODEL_MODEL_SUGGEST_HPP
#define SORTIE_MODEL_MODEL_SUGGEST_HPP

#include <sortie/registry/suggest.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::model {

// One "did you mean" for every kind of name (sortie/registry/suggest.hpp).
using registry::close_names;
using registry::did_you_mean;

// "'a', 'b', 'c'"
std::string quoted_list(const std::vector<std::string>& items);

}  // namespace sortie::model

#endif  // SORTIE_MODEL_MODEL_SUGGEST_HPP
