// File: core/cli/command_line.hpp
//
// Parsing shared by the subcommands that take options plus positional words (handles).
#ifndef SORTIE_CLI_COMMAND_LINE_HPP
#define SORTIE_CLI_COMMAND_LINE_HPP

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"

namespace sortie::cli {

// Parses `args` against `desc` (which must declare "help") plus one positional word. Prints
// `usage` and `desc` and returns nullopt for --help; throws Error naming `missing` when the
// positional word is absent.
// As parse_positional_command, with one or more positional words (at most `max_words`).
std::optional<std::vector<std::string>> parse_positional_words(
    const char* usage, const boost::program_options::options_description& desc, const char* missing,
    const Args& args, boost::program_options::variables_map& vm, int max_words);

std::optional<std::string> parse_positional_command(
    const char* usage, const boost::program_options::options_description& desc, const char* missing,
    const Args& args, boost::program_options::variables_map& vm);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_COMMAND_LINE_HPP
