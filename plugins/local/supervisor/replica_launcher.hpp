// Starts one replica process the way the supervisor needs it: its own process group, killed if
// the supervisor dies, output into pipes, argv exec'd directly (never through a shell).
#ifndef SORTIE_LOCAL_REPLICA_LAUNCHER_HPP
#define SORTIE_LOCAL_REPLICA_LAUNCHER_HPP

#include <sys/types.h>

#include <sortie/error.hpp>
#include <string>

#include "launch_request.hpp"

namespace sortie::local {

struct LaunchedReplica {
  pid_t pid = -1;       // as the supervisor sees it (in its PID namespace)
  pid_t host_pid = -1;  // as the rest of the host sees it
  int stdout_fd = -1;   // read ends, non-blocking and close-on-exec
  int stderr_fd = -1;
  // Empty when exec succeeded; else e.g. "exec 'x': No such file or directory". The child then
  // exits with 127 and is reaped like any other replica.
  std::string exec_error;
};

// Raises this process's open-file soft limit to its hard limit, since the supervisor holds eight
// descriptors per replica (two pipes, three logs and their indexes): a 256-replica app needs
// more than the usual 1024. Replicas get the original limit back before they exec.
void raise_fd_limit_for_replicas();

// RESOURCE_EXHAUSTED: no room for the pipes of `what` ("replica N") under the open-file limit.
Error open_file_limit_reached(const std::string& what);

// Forks and execs `replica` with the containment `marker` (the app dir, containment.hpp), in the
// cgroup whose cgroup.procs is open as `cgroup_procs_fd` (-1: stays in ours). Blocks only until
// the child has exec'd or failed to.
LaunchedReplica launch_replica(const ReplicaLaunch& replica, const std::string& marker,
                               int cgroup_procs_fd);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_REPLICA_LAUNCHER_HPP
