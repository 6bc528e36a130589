#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sortie/session/process_liveness.hpp>
#include <sstream>
#include <string>

namespace sortie::session {
namespace {

// Boot time and clock ticks are coarse: start times compare within a second.
constexpr int64_t kSlackNs = 1'000'000'000;

}  // namespace

std::optional<int64_t> process_started_at(pid_t pid) {
  std::ifstream stat_file("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
  const size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos) return std::nullopt;
  // Fields after the command name start at 3 (state); 22 is the start time in clock ticks.
  std::istringstream fields(stat.substr(close_paren + 2));
  std::string field;
  for (int index = 3; index <= 22 && fields >> field; ++index) {
    if (index == 3 && (field == "Z" || field == "X")) return std::nullopt;
  }
  std::ifstream system_stat("/proc/stat");
  std::string line;
  int64_t boot_time = 0;
  while (std::getline(system_stat, line)) {
    if (line.rfind("btime ", 0) == 0) boot_time = std::strtoll(line.c_str() + 6, nullptr, 10);
  }
  const int64_t ticks = std::strtoll(field.c_str(), nullptr, 10);
  const int64_t per_second = ::sysconf(_SC_CLK_TCK);
  return boot_time * 1000000000 + ticks * (1000000000 / per_second);
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
