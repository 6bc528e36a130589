#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sortie/model/error.hpp>
#include <sortie/session/process_liveness.hpp>
#include <sstream>
#include <string>

namespace sortie::session {
namespace {

// Boot time and clock ticks are coarse: start times compare within a second.
constexpr int64_t kSlackNs = 1'000'000'000;

// The errors of a /proc/PID file whose process is not (or no longer) one of ours: it exited
// before the open (ENOENT) or between the open and a read (ESRCH), or it is another user's
// process behind hidepid (EACCES).
bool process_gone(int error) { return error == ENOENT || error == ESRCH || error == EACCES; }

[[noreturn]] void throw_unreadable(const std::string& path, int error) {
  throw Error::unavailable("cannot read " + path +
                           " to tell whether a sortie process still runs: " + std::strerror(error) +
                           "; retry the command");
}

// The contents of `path`, or nullopt when the process it describes is gone (process_gone, or
// the file reads empty). Raw reads: an ifstream whose process exits between its open and its
// read throws std::ios_base::failure, which no caller expects.
std::optional<std::string> read_proc_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (process_gone(errno)) return std::nullopt;
    throw_unreadable(path, errno);
  }
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n > 0) {
      text.append(buffer, static_cast<size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      const int error = errno;
      ::close(fd);
      if (process_gone(error)) return std::nullopt;
      throw_unreadable(path, error);
    }
  }
  ::close(fd);
  if (text.empty()) return std::nullopt;
  return text;
}

// The boot time in seconds since the epoch (/proc/stat's btime), 0 when it cannot be told.
int64_t boot_time() {
  const std::string stat = read_proc_file("/proc/stat").value_or("");
  const size_t line = stat.find("\nbtime ");
  return line == std::string::npos ? 0 : std::strtoll(stat.c_str() + line + 7, nullptr, 10);
}

}  // namespace

std::optional<int64_t> process_started_at(pid_t pid) {
  const std::optional<std::string> stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return std::nullopt;
  const size_t close_paren = stat->rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= stat->size()) return std::nullopt;
  // Fields after the command name start at 3 (state); 22 is the start time in clock ticks.
  std::istringstream fields(stat->substr(close_paren + 2));
  std::string field;
  for (int index = 3; index <= 22 && fields >> field; ++index) {
    if (index == 3 && (field == "Z" || field == "X")) return std::nullopt;
  }
  const int64_t ticks = std::strtoll(field.c_str(), nullptr, 10);
  const int64_t per_second = ::sysconf(_SC_CLK_TCK);
  return boot_time() * 1000000000 + ticks * (1000000000 / per_second);
}

bool running_since(pid_t pid, int64_t at) {
  const std::optional<int64_t> started = process_started_at(pid);
  return started && *started <= at + kSlackNs;
}

bool same_process_running(pid_t pid, int64_t started_at) {
  const std::optional<int64_t> started = process_started_at(pid);
  return started && std::llabs(*started - started_at) <= kSlackNs;
}

}  // namespace sortie::session
