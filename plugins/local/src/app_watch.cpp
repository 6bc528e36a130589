#include "app_watch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "app_notify.hpp"
#include "file_util.hpp"
#include "process_info.hpp"
#include "runtime_dir.hpp"

namespace sortie::local {

AppWatch::AppWatch(const std::string& app_dir)
    : fifo_path_(notify_fifo_path(runtime_dir_of(app_dir))) {
  open_fifo();
}

AppWatch::~AppWatch() {
  if (fifo_fd_ >= 0) ::close(fifo_fd_);
  if (pid_fd_ >= 0) ::close(pid_fd_);
}

void AppWatch::open_fifo() {
  if (fifo_fd_ >= 0) ::close(fifo_fd_);
  // Non-blocking: opening the read end must not wait for a writer.
  fifo_fd_ = ::open(fifo_path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  // A runtime FIFO is gone once the app has ended and its final state is in the app directory
  // (runtime_dir.hpp), or with a vanished runtime directory: then the state read next is final
  // and nobody waits. Any other failure is an error, and so is a wait without the FIFO.
  if (fifo_fd_ < 0) {
    fifo_error_ = errno;
    if (fifo_error_ != ENOENT) throw_errno("cannot open '" + fifo_path_ + "'");
  }
}

void AppWatch::watch_supervisor(const Supervision& supervisor) {
  if (supervisor_watched_ || !supervisor.pid) return;
  supervisor_watched_ = true;
#ifdef SYS_pidfd_open
  const auto pid = static_cast<pid_t>(*supervisor.pid);
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return;  // gone already, or an old kernel: the FIFO and timeouts still work
  // Checked after opening, so the pidfd cannot refer to a process that reused the pid.
  if (!is_same_process_running(pid, supervisor.start_time)) {
    ::close(fd);
    return;
  }
  pid_fd_ = fd;
#endif
}

AppWatch::Wake AppWatch::wait(int64_t timeout_ms) {
  if (fifo_fd_ < 0) {
    errno = fifo_error_;
    throw_errno("cannot wait for a change of the app: cannot open '" + fifo_path_ + "'");
  }
  pollfd fds[2] = {{fifo_fd_, POLLIN, 0}, {pid_fd_, POLLIN, 0}};
  const nfds_t count = pid_fd_ >= 0 ? 2 : 1;
  const int timeout =
      timeout_ms < 0 ? -1 : static_cast<int>(std::min<int64_t>(timeout_ms, INT_MAX));
  const int ready = ::poll(fds, count, timeout);
  if (ready == 0) return Wake::kTimeout;
  if (ready < 0) {
    if (errno == EINTR) return Wake::kSignal;
    throw_errno("poll");
  }
  // POLLHUP stays raised until the read end is reopened.
  if (fds[0].revents != 0) open_fifo();
  if (count == 2 && (fds[1].revents & (POLLIN | POLLHUP)) != 0) {
    // An exited process stays readable: drop it so later waits do not spin.
    ::close(pid_fd_);
    pid_fd_ = -1;
  }
  return Wake::kChanged;
}

}  // namespace sortie::local
