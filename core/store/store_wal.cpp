#include "store_wal.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <sortie/registry/install_location.hpp>
#include <vector>

extern char** environ;

namespace sortie::store::detail {
namespace {

int on_commit(void* frames, sqlite3* db, const char* schema, int wal_frames) {
  *static_cast<int64_t*>(frames) = wal_frames;
  if (wal_frames >= kInlineCheckpointFrames) {
    sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  }
  return SQLITE_OK;
}

std::string helper_path() {
  // Installed and staged trees alike keep it at this place in the prefix of the `sortie`
  // executable or of libsortie_launch.so, whichever holds this code.
  return (registry::install_prefix_of(registry::own_module_file()) / SORTIE_STORE_HELPER_DIR /
          "sortie-store-checkpoint")
      .lexically_normal()
      .string();
}

}  // namespace

void watch_wal(sqlite3* db, int64_t* frames) { sqlite3_wal_hook(db, on_commit, frames); }

void checkpoint_in_background(const std::string& path) {
  static const std::string helper = helper_path();
  // A long-lived process (the Python module, `sortie ui`) reaps the helpers it started before.
  static std::mutex started_mutex;
  static std::vector<pid_t> started;
  const std::lock_guard<std::mutex> lock(started_mutex);
  started.erase(std::remove_if(started.begin(), started.end(),
                               [](pid_t pid) { return ::waitpid(pid, nullptr, WNOHANG) != 0; }),
                started.end());

  posix_spawn_file_actions_t files;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&files);
  posix_spawnattr_init(&attributes);
  // Nothing of ours stays open in it: a caller reading our output through a pipe does not wait
  // for the checkpoint.
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    posix_spawn_file_actions_addopen(&files, fd, "/dev/null",
                                     fd == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0);
  }
  posix_spawn_file_actions_addclosefrom_np(&files, STDERR_FILENO + 1);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK);
  std::string program = helper;
  std::string store = path;
  char* argv[] = {program.data(), store.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, helper.c_str(), &files, &attributes, argv, environ) == 0) {
    started.push_back(pid);
  }
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&files);
}

}  // namespace sortie::store::detail
