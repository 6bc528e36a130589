// Starts sortie-local-supervisor for an app, detached from the calling process: each starter's
// start-up overlaps with writing its app's files, and schedule() then waits only for its answer
// (start_signal.hpp), not for it to exit.
#ifndef SORTIE_LOCAL_SUPERVISOR_LAUNCH_HPP
#define SORTIE_LOCAL_SUPERVISOR_LAUNCH_HPP

#include <sys/types.h>

#include <string>
#include <vector>

#include "start_signal.hpp"

namespace sortie::local {

// The supervisor next to this plugin: <plugin dir>/SORTIE_LOCAL_SUPERVISOR_RELDIR/.
std::string supervisor_executable();

// The starter processes this scheduler instance spawned and has not reaped yet. A starter forks
// the supervisor and exits once that one has recorded itself in state.json (or recorded why it
// could not), so it is only briefly our child; reaping keeps it from lingering as a zombie.
class SupervisorStarts {
 public:
  SupervisorStarts() = default;
  // Waits for every starter: when a scheduler instance is gone, each app it submitted has a
  // supervisor on record or is FAILED with the reason.
  ~SupervisorStarts();
  SupervisorStarts(const SupervisorStarts&) = delete;
  SupervisorStarts& operator=(const SupervisorStarts&) = delete;

  // Spawns the starter in a new session (it appends its stdout and stderr to
  // <app_dir>/supervisor.log), handing it the submission lock `lock_fd` as kSubmitLockFd and
  // the receiving end of the returned signal as kStartSignalFd: it reads nothing of the app
  // before go() (start_signal.hpp). With `inherit_environment` false it gets only the SORTIE_*
  // variables of ours (and passes them on to the replicas). Throws UNAVAILABLE when it cannot
  // be executed at all.
  StartSignal start(const std::string& app_dir, int lock_fd, bool inherit_environment);
  // Reaps the starters that have exited, without blocking.
  void reap_finished();
  // Blocks until the starter of `app_dir`, if it is ours, has exited.
  void wait_for(const std::string& app_dir);

 private:
  struct Starter {
    pid_t pid;
    std::string app_dir;
  };
  // Reaps `starter` (blocking or not); true once it is gone.
  static bool reap(const Starter& starter, bool block);

  std::vector<Starter> starters_;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_SUPERVISOR_LAUNCH_HPP
