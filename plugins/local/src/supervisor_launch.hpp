// Starts sortie-local-supervisor for an app, detached from the calling process.
#ifndef SORTIE_LOCAL_SUPERVISOR_LAUNCH_HPP
#define SORTIE_LOCAL_SUPERVISOR_LAUNCH_HPP

#include <string>

namespace sortie::local {

// The supervisor next to this plugin: <plugin dir>/SORTIE_LOCAL_SUPERVISOR_RELDIR/.
std::string supervisor_executable();

// Spawns the supervisor in a new session (stdin /dev/null, stdout and stderr appended to
// <app_dir>/supervisor.log) and returns once it has recorded itself in state.json; the app itself
// is not waited for. Throws UNAVAILABLE with the supervisor's log when it could not start.
void start_supervisor(const std::string& app_dir);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_SUPERVISOR_LAUNCH_HPP
