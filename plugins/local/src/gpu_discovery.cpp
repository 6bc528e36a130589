#include "gpu_discovery.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string_view>

extern char** environ;

namespace sortie::local {
namespace {

std::vector<std::string> split_commas(std::string_view text) {
  std::vector<std::string> ids;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    std::string_view id = text.substr(start, comma - start);
    while (!id.empty() && id.front() == ' ') id.remove_prefix(1);
    while (!id.empty() && id.back() == ' ') id.remove_suffix(1);
    if (!id.empty()) ids.emplace_back(id);
    start = comma + 1;
  }
  return ids;
}

std::vector<std::string> from_proc() {
  std::vector<std::string> ids;
  DIR* dir = ::opendir("/proc/driver/nvidia/gpus");
  if (dir == nullptr) return ids;
  size_t count = 0;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] != '.') ++count;
  }
  ::closedir(dir);
  for (size_t i = 0; i < count; ++i) ids.push_back(std::to_string(i));
  return ids;
}

std::vector<std::string> from_nvidia_smi() {
  std::vector<std::string> ids;
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return ids;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  char program[] = "nvidia-smi";
  char list[] = "-L";
  char* argv[] = {program, list, nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, program, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  std::string text;
  if (spawned == 0) {
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(out[0], buffer, sizeof(buffer))) != 0) {
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) break;
      text.append(buffer, static_cast<size_t>(n));
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  ::close(out[0]);
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = std::min(text.find('\n', start), text.size());
    if (text.compare(start, 4, "GPU ") == 0) ids.push_back(std::to_string(ids.size()));
    start = end + 1;
  }
  return ids;
}

}  // namespace

std::vector<std::string> discover_gpu_devices(
    const std::optional<std::vector<std::string>>& configured) {
  if (configured.has_value()) return *configured;
  if (const char* env = std::getenv("SORTIE_GPU_DEVICES")) return split_commas(env);
  std::vector<std::string> ids = from_proc();
  if (!ids.empty()) return ids;
  return from_nvidia_smi();
}

}  // namespace sortie::local
