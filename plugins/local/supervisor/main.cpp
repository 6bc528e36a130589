// sortie-local-supervisor <app_dir>: runs the app described by <app_dir>/request.json.
//
// The process started by the scheduler (the starter) forks the real supervisor and exits as soon
// as that one has recorded itself in state.json, so the supervisor is re-parented away from the
// submitting process (it never becomes that process's zombie). When the supervisor cannot start,
// the starter records the app FAILED with the reason before exiting non-zero. Either way it
// answers the submitting process, which waits for that answer (start_signal.hpp), so a failure
// that could not be recorded (no space left for state.json) still reaches it.
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "app_cgroup.hpp"
#include "containment_choice.hpp"
#include "file_util.hpp"
#include "json_fields.hpp"
#include "launch_request.hpp"
#include "read_only_view.hpp"
#include "replica_launcher.hpp"
#include "start_failure.hpp"
#include "start_signal.hpp"
#include "submit_lock.hpp"
#include "supervisor.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
// LeakSanitizer checks at exit by stopping every thread from a ptrace'd helper; in the supervisor
// (a subreaper that blocks the signals it handles) that helper never finishes and exit spins for
// ever. Only that exit-time leak check is off: ASan and UBSan still check the supervisor.
extern "C" int __lsan_is_turned_off() { return 1; }
#endif

namespace {

int fail_to_start(const std::string& app_dir, const sortie::Error& error) {
  std::fprintf(stderr, "sortie-local-supervisor: %s\n", error.what());
  std::string reason = std::string("the supervisor could not start: ") + error.what();
  const std::string unrecorded = sortie::local::record_start_failure(app_dir, reason);
  if (!unrecorded.empty()) reason += "; recording that failed too: " + unrecorded;
  sortie::local::answer_start_signal(
      sortie::local::encode_start_failure(sortie::Error(error.code(), reason)));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace sortie::local;
  if (argc != 2) {
    std::fprintf(stderr, "usage: sortie-local-supervisor <app_dir>\n");
    return 2;
  }
  const std::string app_dir = argv[1];
  // posix_spawn hands over every descriptor the caller did not mark close-on-exec (a store's
  // database files, a pipe the caller's shell reads): kept, they would make `x=$(sortie run
  // ...)` wait for the app (ABI-11). Only 0-2, the lock and the start signal are ours.
  ::close_range(kStartSignalFd + 1, ~0U, 0);
  // The submission lock (submit_lock.hpp), if we were handed it: never the replicas'.
  const int submit_lock_fd = ::fcntl(kSubmitLockFd, F_SETFD, FD_CLOEXEC) == 0 ? kSubmitLockFd : -1;
  // Spawned before the app's files were written: nothing of the app is read before the go, and
  // without one schedule() gave up, so there is nothing to record.
  if (::fcntl(kStartSignalFd, F_GETFD) < 0) {
    std::fprintf(stderr,
                 "sortie-local-supervisor: no start signal on descriptor %d: only the "
                 "local scheduler starts it\n",
                 kStartSignalFd);
    return 2;
  }
  if (!await_start_signal()) return 0;
  // Everything the starter and the supervisor print goes to the app's supervisor.log.
  const std::string log = app_dir + "/supervisor.log";
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd >= 0) {
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::close(log_fd);
  }
  const std::string request_path = app_dir + "/request.json";
  LaunchRequest request;
  try {
    request = read_launch_request(
        sortie::plugins_common::parse_object(read_file(request_path), request_path), request_path);
  } catch (const std::exception& error) {
    return fail_to_start(app_dir, as_sortie_error(error));
  }

  // Chosen before the fork: with a PID namespace, the child is the namespace's init.
  Containment containment;
  try {
    containment = choose_containment(request.app_id);
  } catch (const std::exception& error) {
    return fail_to_start(app_dir, as_sortie_error(error));
  }
  // A supervisor that never started left its cgroup empty: remove it with the failure.
  const auto fail_before_replicas = [&](const sortie::Error& error) {
    if (!containment.cgroup_dir.empty()) kill_and_remove_cgroup(containment.cgroup_dir);
    return fail_to_start(app_dir, error);
  };

  // The child reports "1" once it has recorded itself, or why it could not.
  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0)
    return fail_before_replicas(
        sortie::Error::unavailable(std::string("pipe: ") + std::strerror(errno)));
  const pid_t child = ::fork();
  if (child < 0)
    return fail_before_replicas(
        sortie::Error::unavailable(std::string("fork: ") + std::strerror(errno)));
  if (child > 0) {
    ::close(ready[1]);
    std::string report;
    char buffer[512];
    ssize_t n;
    while ((n = ::read(ready[0], buffer, sizeof buffer)) > 0) {
      report.append(buffer, static_cast<size_t>(n));
      if (report == "1") {
        answer_start_signal("");
        return 0;
      }
    }
    return fail_before_replicas(report.empty()
                                    ? sortie::Error::unknown("it exited before recording itself")
                                    : decode_start_failure(report));
  }
  ::close(ready[0]);
  ::close(kStartSignalFd);  // the starter answers; the submitter reads until the starter exits
  try {
    // Orphans of the replicas are re-parented to us, so we can reap them (as init of a PID
    // namespace we get them anyway).
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    raise_fd_limit_for_replicas();
    // Before any thread starts: a user namespace can only be entered single-threaded.
    if (const std::string why =
            sortie::plugins_common::enter_read_only_view(request.read_only_dirs);
        !why.empty()) {
      throw sortie::Error::failed_precondition(
          "run option read_only_workdir: " + why +
          " (an experiment's units run from its snapshot only where it can be made read-only to "
          "them; run them from the live directory with live_workdir, or allow user namespaces)");
    }
    Supervisor supervisor(std::move(request), containment);
    supervisor.prepare(submit_lock_fd);
    [[maybe_unused]] const ssize_t n = ::write(ready[1], "1", 1);
    ::close(ready[1]);
    return supervisor.run();
  } catch (const std::exception& error) {
    const std::string reason = encode_start_failure(as_sortie_error(error));
    [[maybe_unused]] const ssize_t n = ::write(ready[1], reason.data(), reason.size());
    return 1;
  }
}
