// File: core/cli/commands.hpp
//
// The `sortie` subcommands. Each takes the words after its name and returns the process exit
// status (see exit_codes below); errors are thrown as Error or Boost.Program_options
// exceptions and reported by main().
#ifndef SORTIE_CLI_COMMANDS_HPP
#define SORTIE_CLI_COMMANDS_HPP

#include <sortie/plugin_abi.h>

#include <sortie/session/session.hpp>
#include <string>
#include <vector>

namespace sortie::cli {

// Exit statuses, the table of docs/exit-status.md.
inline constexpr int kExitOk = 0;
// The app failed or was cancelled, or the handle (or experiment id) is unknown.
inline constexpr int kExitAppNotSucceeded = 1;
// Something the user typed or wrote is wrong: an unknown scheduler, component, image provider,
// role, replica, option, config key or section, or a bad spec field or value.
inline constexpr int kExitUsage = 2;
// A plugin or its backend failed, including a manifest whose library is missing or fails to
// load, and a recorded app whose state cannot be refreshed.
inline constexpr int kExitBackend = 3;
inline constexpr int kExitInterrupted = 130;  // SIGINT/SIGTERM while waiting (app cancelled)

// How long `run --wait` and `launch --wait` wait by default (their --timeout): a day, so a job
// stuck in a queue or hung still ends the command (docs/exit-status.md, exit 3).
inline constexpr double kDefaultWaitForAppsS = 24 * 60 * 60;

// The exit status of a command stopped by an error with this status (docs/exit-status.md).
// An unknown handle never gets here: it is reported where it is looked up (app_report.cpp).
inline int exit_status_of(sortie_status status) {
  switch (status) {
    case SORTIE_INVALID_ARGUMENT:  // something typed or written is malformed
    case SORTIE_NOT_FOUND:         // something typed or written names nothing that exists
      return kExitUsage;
    default:  // a plugin, its library or its backend failed
      return kExitBackend;
  }
}

using Args = std::vector<std::string>;

int cmd_run(session::Session& ctx, const Args& args);
int cmd_status(session::Session& ctx, const Args& args);
int cmd_describe(session::Session& ctx, const Args& args);
int cmd_log(session::Session& ctx, const Args& args);
int cmd_metrics(session::Session& ctx, const Args& args);
int cmd_list(session::Session& ctx, const Args& args);
int cmd_cancel(session::Session& ctx, const Args& args);
int cmd_runopts(session::Session& ctx, const Args& args);
int cmd_plugins(session::Session& ctx, const Args& args);
int cmd_resources(session::Session& ctx, const Args& args);
int cmd_builtins(session::Session& ctx, const Args& args);
int cmd_launch(session::Session& ctx, const Args& args);
int cmd_experiments(session::Session& ctx, const Args& args);
int cmd_ui(session::Session& ctx, const Args& args);
int cmd_config(session::Session& ctx, const Args& args);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_COMMANDS_HPP
