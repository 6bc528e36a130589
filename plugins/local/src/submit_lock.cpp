#include "submit_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "file_util.hpp"

namespace sortie::local {

int lock_for_submission(const std::string& app_dir) {
  const int fd = ::open(app_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_errno("cannot open app directory '" + app_dir + "'");
  if (::flock(fd, LOCK_EX) != 0) {
    const int error = errno;
    ::close(fd);
    errno = error;
    throw_errno("cannot lock app directory '" + app_dir + "'");
  }
  return fd;
}

bool submission_in_progress(const std::string& app_dir) {
  const int fd = ::open(app_dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);  // releases our shared lock, if we got it
  return held;
}

}  // namespace sortie::local
