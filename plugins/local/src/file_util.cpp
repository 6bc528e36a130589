#include "file_util.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sortie/plugin.hpp>

#include "job_files.hpp"

namespace sortie::local {

void throw_errno(const std::string& what) {
  const int error = errno;
  const Code code = error == ENOENT                      ? Code::kNotFound
                    : error == ENOSPC || error == EDQUOT ? Code::kResourceExhausted
                                                         : Code::kUnknown;
  throw Error(code, what + ": " + std::strerror(error));
}

std::string read_file(const std::string& path) {
  const int fd = plugins_common::open_job_file(path);
  if (fd < 0) {
    errno = ENOENT;
    throw_errno("cannot open '" + path + "'");
  }
  std::string content;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      errno = error;
      throw_errno("cannot read '" + path + "'");
    }
    if (n == 0) break;
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

void write_file_atomically(const std::string& path, std::string_view content) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw_errno("cannot create '" + temporary + "'");
  size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      ::unlink(temporary.c_str());
      errno = error;
      throw_errno("cannot write '" + temporary + "'");
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    errno = error;
    throw_errno("cannot rename '" + temporary + "' to '" + path + "'");
  }
}

void make_directories(const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && ::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) {
      throw_errno("cannot create directory '" + prefix + "'");
    }
    if (slash == std::string::npos) break;
  }
}

std::string parent_directory(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace sortie::local
