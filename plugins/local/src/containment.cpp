#include "containment.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <csignal>
#include <vector>

namespace sortie::local {
namespace {

std::vector<pid_t> marked_processes(const std::string& entry) {
  std::vector<pid_t> found;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return found;
  const pid_t self = ::getpid();
  while (const dirent* item = ::readdir(proc)) {
    if (!std::isdigit(static_cast<unsigned char>(item->d_name[0]))) continue;
    const auto pid = static_cast<pid_t>(std::stol(item->d_name));
    if (pid != self && environment_holds(pid, entry)) found.push_back(pid);
  }
  ::closedir(proc);
  return found;
}

}  // namespace

bool environment_holds(pid_t pid, const std::string& entry) {
  const std::string path = "/proc/" + std::to_string(pid) + "/environ";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;  // gone, or another user's
  std::string environment;
  char buffer[65536];
  ssize_t n;
  while ((n = ::read(fd, buffer, sizeof(buffer))) > 0) {
    environment.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  // Entries are NUL-terminated; compare whole entries only.
  for (size_t at = 0; at < environment.size();) {
    const size_t end = environment.find('\0', at);
    const size_t length = (end == std::string::npos ? environment.size() : end) - at;
    if (environment.compare(at, length, entry) == 0) return true;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return false;
}

std::string containment_guarantee(std::string_view containment) {
  if (containment == kPidNamespace) {
    return "every process of the app dies with it (PID namespace), even if its supervisor is "
           "killed";
  }
  if (containment == kCgroup) {
    return "every process of the app is killed with it (cgroup v2 cgroup.kill); if its "
           "supervisor is killed, at the next sortie command (PID namespaces unavailable)";
  }
  if (containment == kProcessMarker) {
    return "processes of the app are killed when it ends (environment marker); if its "
           "supervisor is killed, at the next sortie command (PID namespaces unavailable)";
  }
  return "";
}

int kill_marked_processes(const std::string& app_dir) {
  const std::string entry = std::string(kMarkerVariable) + "=" + app_dir;
  int killed = 0;
  // A marked process may fork between the scan and the kill: scan again until none is left.
  for (int round = 0; round < 100; ++round) {
    const std::vector<pid_t> found = marked_processes(entry);
    if (found.empty()) break;
    for (pid_t pid : found) {
      if (::kill(pid, SIGKILL) == 0) ++killed;
    }
  }
  return killed;
}

}  // namespace sortie::local
