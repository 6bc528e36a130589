#include "model_files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/regular_file.hpp>

namespace sortie::model {
namespace {

// The whole content of the open `fd`, which must be a regular file of at most `size_limit`.
std::string read_regular_file(int fd, const std::string& path, const std::string& what,
                              const limits::Limit& size_limit) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) throw cannot_read(errno, what, path);
  require_regular_file(info.st_mode, what, path);
  // Read in chunks, so a file past the limit (or one growing while read) is refused having cost
  // no more than the limit.
  const size_t max_bytes = limits::value(size_limit);
  std::string content;
  std::array<char, 65536> chunk;
  for (;;) {
    const ssize_t count = ::read(fd, chunk.data(), chunk.size());
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) throw cannot_read(errno, what, path);
    if (count == 0) return content;
    content.append(chunk.data(), static_cast<size_t>(count));
    if (content.size() > max_bytes) {
      throw Error::invalid_argument(path + ": " + limits::exceeded("the " + what, size_limit));
    }
  }
}

std::optional<std::string> read(const std::string& path, const std::string& what,
                                const limits::Limit& size_limit, bool missing_is_error) {
  // O_NONBLOCK: opening a FIFO nobody writes to would otherwise wait for ever, before fstat
  // could tell what the path is. A regular file ignores the flag.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    if (errno == ENOENT && !missing_is_error) return std::nullopt;
    throw cannot_read(errno, what, path);
  }
  try {
    std::string content = read_regular_file(fd, path, what, size_limit);
    ::close(fd);
    return content;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& what,
                           const limits::Limit& size_limit) {
  return *read(path, what, size_limit, true);
}

std::optional<std::string> read_text_file_if_exists(const std::string& path,
                                                    const std::string& what,
                                                    const limits::Limit& size_limit) {
  return read(path, what, size_limit, false);
}

}  // namespace sortie::model
