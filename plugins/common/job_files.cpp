#include "job_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sortie/error.hpp>

namespace sortie::plugins_common {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  if (S_ISDIR(mode)) return "a directory";
  return "not a regular file";
}

[[noreturn]] void refuse(const std::string& path, const char* kind) {
  throw Error::failed_precondition("'" + path + "' is " + kind +
                                   ", not a regular file: a job's log or metrics file is read "
                                   "only when it is one (docs/payloads.md P-10); not read");
}

}  // namespace

int open_job_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return -1;
    if (errno == ELOOP) refuse(path, "a symbolic link");
    throw Error::unknown("cannot open '" + path + "': " + std::strerror(errno));
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    const mode_t mode = info.st_mode;
    ::close(fd);
    refuse(path, kind_of(mode));
  }
  return fd;
}

}  // namespace sortie::plugins_common
