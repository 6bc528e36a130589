#include "app_watch.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "file_util.hpp"
#include "process_info.hpp"

namespace sortie::local {

AppWatch::AppWatch(const std::string& app_dir, const std::vector<std::string>& log_dirs)
    : inotify_fd_(::inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) {
  if (inotify_fd_ < 0) throw_errno("inotify_init1");
  if (::inotify_add_watch(inotify_fd_, app_dir.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
    throw_errno("cannot watch '" + app_dir + "'");
  }
  for (const std::string& dir : log_dirs) {
    if (::inotify_add_watch(inotify_fd_, dir.c_str(), IN_MODIFY | IN_CREATE) < 0) {
      throw_errno("cannot watch '" + dir + "'");
    }
  }
}

AppWatch::~AppWatch() {
  ::close(inotify_fd_);
  if (pid_fd_ >= 0) ::close(pid_fd_);
}

void AppWatch::watch_supervisor(const AppStatus& status) {
  if (supervisor_watched_ || status.supervisor_pid <= 0) return;
  supervisor_watched_ = true;
#ifdef SYS_pidfd_open
  const int fd =
      static_cast<int>(::syscall(SYS_pidfd_open, static_cast<pid_t>(status.supervisor_pid), 0));
  if (fd < 0) return;  // gone already, or an old kernel: inotify and timeouts still work
  // Checked after opening, so the pidfd cannot refer to a process that reused the pid.
  if (!is_same_process_running(static_cast<pid_t>(status.supervisor_pid),
                               status.supervisor_start_time)) {
    ::close(fd);
    return;
  }
  pid_fd_ = fd;
#endif
}

bool AppWatch::wait(int64_t timeout_ms) {
  pollfd fds[2] = {{inotify_fd_, POLLIN, 0}, {pid_fd_, POLLIN, 0}};
  const nfds_t count = pid_fd_ >= 0 ? 2 : 1;
  const int timeout =
      timeout_ms < 0 ? -1 : static_cast<int>(std::min<int64_t>(timeout_ms, INT_MAX));
  int ready;
  do {
    ready = ::poll(fds, count, timeout);
  } while (ready < 0 && errno == EINTR);
  if (ready <= 0) return false;
  char events[8192];
  while (::read(inotify_fd_, events, sizeof(events)) > 0) {
  }
  if (count == 2 && (fds[1].revents & (POLLIN | POLLHUP)) != 0) {
    // An exited process stays readable: drop it so later waits do not spin.
    ::close(pid_fd_);
    pid_fd_ = -1;
  }
  return true;
}

}  // namespace sortie::local
