// Whether the process that recorded something in the store still runs. A pid alone is not
// enough (pids are reused, also across reboots), so a recorded pid goes with a time: the
// process's start, read from /proc.
#ifndef SORTIE_SESSION_PROCESS_LIVENESS_HPP
#define SORTIE_SESSION_PROCESS_LIVENESS_HPP

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace sortie::session {

// When `pid` started, in ns since the epoch, or nullopt when it does not run (or is a zombie, or
// exits while it is read, or is another user's process that /proc hides). Throws
// Error(UNAVAILABLE) when /proc cannot be read for another reason (no file descriptors left).
std::optional<int64_t> process_started_at(pid_t pid);

// True while `pid` runs and started no later than `at` (ns since the epoch): the process that
// wrote a record at `at`, not a later one that reuses its pid.
bool running_since(pid_t pid, int64_t at);

// True while `pid` runs and is the process that started at `started_at` (process_started_at).
bool same_process_running(pid_t pid, int64_t started_at);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_PROCESS_LIVENESS_HPP
