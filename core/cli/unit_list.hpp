// File: core/cli/unit_list.hpp
//
// Parses the work unit ids of `experiments rerun --units`: ids and inclusive ranges, separated by
// commas ("3,7-9" is 3, 7, 8 and 9).
#ifndef SORTIE_CLI_UNIT_LIST_HPP
#define SORTIE_CLI_UNIT_LIST_HPP

#include <string>
#include <vector>

namespace sortie::cli {

// The ids in the order written; throws Error (INVALID_ARGUMENT) naming the bad item.
std::vector<int> parse_unit_list(const std::string& text);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_UNIT_LIST_HPP
