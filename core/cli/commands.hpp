// File: core/cli/commands.hpp
//
// The `sortie` subcommands. Each takes the words after its name and returns the process exit
// status (see exit_codes below); errors are thrown as core::Error or Boost.Program_options
// exceptions and reported by main().
#ifndef SORTIE_CLI_COMMANDS_HPP
#define SORTIE_CLI_COMMANDS_HPP

#include <string>
#include <vector>

#include "cli_context.hpp"

namespace sortie::cli {

// Exit statuses, documented in the README.
inline constexpr int kExitOk = 0;
inline constexpr int kExitAppNotSucceeded = 1;  // the app failed/was cancelled, or is unknown
inline constexpr int kExitUsage = 2;            // bad command line, spec, option or config
inline constexpr int kExitBackend = 3;          // a plugin or backend failed
inline constexpr int kExitInterrupted = 130;    // SIGINT/SIGTERM while waiting (app cancelled)

using Args = std::vector<std::string>;

int cmd_run(CliContext& ctx, const Args& args);
int cmd_status(CliContext& ctx, const Args& args);
int cmd_describe(CliContext& ctx, const Args& args);
int cmd_log(CliContext& ctx, const Args& args);
int cmd_list(CliContext& ctx, const Args& args);
int cmd_cancel(CliContext& ctx, const Args& args);
int cmd_runopts(CliContext& ctx, const Args& args);
int cmd_plugins(CliContext& ctx, const Args& args);
int cmd_resources(CliContext& ctx, const Args& args);
int cmd_builtins(CliContext& ctx, const Args& args);
int cmd_launch(CliContext& ctx, const Args& args);
int cmd_experiments(CliContext& ctx, const Args& args);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_COMMANDS_HPP
