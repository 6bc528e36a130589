// A process a scheduler starts on this host, detached, whose state lives in files so that any
// later sortie process can answer about it from the app id alone (ABI-8). Part of
// Sortie::plugin_support.
#ifndef SORTIE_PROCESS_HPP
#define SORTIE_PROCESS_HPP

#include <optional>
#include <string>
#include <vector>

#include "app_state.hpp"
#include "appdef.hpp"

namespace sortie {

// Starts argv (argv[0] looked up in PATH, never through a shell) under a small supervisor in a
// new session and returns without waiting. The command gets the caller's environment with `env`
// set over it. Its files are `path` plus: ".pid" (the supervisor,
// which leads the process group), ".log" (the command's stdout and stderr, never the caller's
// stdout, ABI-11), ".exit" (its exit status, 128 + signal if killed, written atomically when it
// ends) and ".cancelled" (written by stop_process). A command that cannot be started exits 127.
// Throws sortie::Error: INVALID_ARGUMENT for an empty argv or unwritable files, INTERNAL if fork
// fails.
void start_process(const std::vector<std::string>& argv, const std::string& path,
                   const StringPairs& env = {});

// What one replica of a role runs: its entrypoint and args, and its env, with the macros of
// docs/payloads.md P-12 that a host-local scheduler knows (${app_id}, ${replica_id},
// ${num_replicas}, ${role_name}) substituted.
struct ReplicaCommand {
  std::vector<std::string> argv;
  StringPairs env;
};
ReplicaCommand replica_command(const Role& role, const std::string& app_id, int64_t replica_id);

// RUNNING until the process ends, then SUCCEEDED (exit status 0), CANCELLED (stopped by
// stop_process) or FAILED; nothing when no process was started at `path`.
std::optional<AppState> process_state(const std::string& path);

// The exit status of the ended process at `path`, else nothing.
std::optional<int> process_exit_status(const std::string& path);

// Stops a running process (SIGTERM to its group) so that it ends CANCELLED; a process that has
// ended keeps its state (terminal states are final). False when no process was started at `path`.
bool stop_process(const std::string& path);

}  // namespace sortie

#endif  // SORTIE_PROCESS_HPP
