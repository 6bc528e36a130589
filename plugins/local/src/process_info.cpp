#include "process_info.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <string>

namespace sortie::local {

std::optional<uint64_t> process_start_time(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  const std::string path = "/proc/" + std::to_string(pid) + "/stat";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buffer[1024];
  const ssize_t n = ::read(fd, buffer, sizeof(buffer) - 1);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  buffer[n] = '\0';
  // The command name (field 2) may contain spaces and parentheses; fields resume after the last
  // ')'.
  const std::string stat(buffer, static_cast<size_t>(n));
  const size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos || close_paren + 2 >= stat.size()) return std::nullopt;
  const char state = stat[close_paren + 2];
  if (state == 'Z' || state == 'X') return std::nullopt;
  // After ")": field 3 is the state, so field 22 is the 20th space-separated token.
  const char* cursor = stat.c_str() + close_paren + 2;
  for (int field = 3; field < 22; ++field) {
    while (*cursor != ' ' && *cursor != '\0') ++cursor;
    while (*cursor == ' ') ++cursor;
  }
  if (*cursor == '\0') return std::nullopt;
  return std::strtoull(cursor, nullptr, 10);
}

bool is_same_process_running(pid_t pid, uint64_t start_time) {
  const std::optional<uint64_t> actual = process_start_time(pid);
  return actual.has_value() && *actual == start_time;
}

namespace {

int64_t clock_ns(clockid_t clock) {
  timespec now{};
  ::clock_gettime(clock, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

}  // namespace

int64_t now_ns() { return clock_ns(CLOCK_REALTIME); }

int64_t monotonic_ns() { return clock_ns(CLOCK_MONOTONIC); }

}  // namespace sortie::local
