#include "state_writer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sortie/plugin.hpp>

#include "file_util.hpp"

namespace sortie::local {
namespace {

// Whitespace after the JSON document (still valid JSON) that a later, longer state can use when
// it must be rewritten in place: room for a final message.
constexpr size_t kSpareBytes = 2048;

}  // namespace

StateWriter::StateWriter(std::string dir)
    : path_(std::move(dir) + "/state.json"), spare_fd_(::open("/dev/null", O_RDONLY | O_CLOEXEC)) {}

StateWriter::~StateWriter() {
  if (spare_fd_ >= 0) ::close(spare_fd_);
}

bool StateWriter::write(std::string_view state_json) {
  // The reserve goes to this write (and the waiters' wake-up after it), then is taken back.
  if (spare_fd_ >= 0) ::close(spare_fd_);
  std::string content(state_json);
  content.append(kSpareBytes, ' ');
  content.back() = '\n';
  bool written = true;
  try {
    write_file_atomically(path_, content);
  } catch (const Error& error) {
    error_ = error.what();
    written = rewrite_in_place(content);
  }
  spare_fd_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  return written;
}

bool StateWriter::rewrite_in_place(const std::string& content) {
  const int fd = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat info {};
  // Only within the blocks the file already has: nothing new to allocate on a full disk.
  std::string padded = content.substr(0, content.find_last_not_of(" \n") + 1);
  const bool fits = ::fstat(fd, &info) == 0 && padded.size() < static_cast<size_t>(info.st_size);
  if (fits) {
    padded.append(static_cast<size_t>(info.st_size) - padded.size(), ' ');
    padded.back() = '\n';
  }
  const bool written =
      fits && ::pwrite(fd, padded.data(), padded.size(), 0) == static_cast<ssize_t>(padded.size());
  if (!written)
    error_ += std::string("; rewriting it in place failed too: ") +
              (fits ? std::strerror(errno) : "the new state is larger");
  ::close(fd);
  return written;
}

}  // namespace sortie::local
