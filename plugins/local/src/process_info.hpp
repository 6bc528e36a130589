// Identifies a process by pid *and* start time, so that a recorded pid that the kernel has since
// handed to another process is recognised as gone.
#ifndef SORTIE_LOCAL_PROCESS_INFO_HPP
#define SORTIE_LOCAL_PROCESS_INFO_HPP

#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace sortie::local {

// Field 22 of /proc/<pid>/stat (clock ticks since boot), or nullopt when the process does not
// exist or is a zombie (it has exited and only waits to be reaped).
std::optional<uint64_t> process_start_time(pid_t pid);

// True while `pid` runs and is the process that started at `start_time`.
bool is_same_process_running(pid_t pid, uint64_t start_time);

int64_t now_ns();
// CLOCK_MONOTONIC in nanoseconds: for deadlines, which a change of the wall clock must not move.
int64_t monotonic_ns();

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_PROCESS_INFO_HPP
