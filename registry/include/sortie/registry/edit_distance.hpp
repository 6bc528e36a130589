// File: sortie/registry/edit_distance.hpp
//
// Levenshtein distance, the measure behind every "did you mean" hint (registry names, spec
// keys, options), so all of them judge closeness alike.
#ifndef SORTIE_REGISTRY_EDIT_DISTANCE_HPP
#define SORTIE_REGISTRY_EDIT_DISTANCE_HPP

#include <cstddef>
#include <string_view>

namespace sortie::registry {

// Insertions, deletions and substitutions needed to turn a into b.
size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace sortie::registry

#endif  // SORTIE_REGISTRY_EDIT_DISTANCE_HPP
