#include "supervisor_launch.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sortie/plugin.hpp>

#include "file_util.hpp"

extern char** environ;

namespace sortie::local {

std::string supervisor_executable() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&supervisor_executable), &info) == 0 ||
      info.dli_fname == nullptr) {
    throw Error(Code::kInternal, "local scheduler: cannot locate its own library (dladdr failed)");
  }
  const std::string path = parent_directory(info.dli_fname) + "/" + SORTIE_LOCAL_SUPERVISOR_RELDIR +
                           "/sortie-local-supervisor";
  if (::access(path.c_str(), X_OK) != 0) {
    throw Error(Code::kFailedPrecondition, "local scheduler: supervisor '" + path +
                                               "' is missing or not executable (" +
                                               std::strerror(errno) + "); reinstall sortie");
  }
  return path;
}

void start_supervisor(const std::string& app_dir) {
  const std::string program = supervisor_executable();
  const std::string log = app_dir + "/supervisor.log";

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  // A new session: the terminal's SIGINT/SIGHUP do not reach the app. Signal state is reset so
  // that whatever the host blocked or ignored does not leak into the replicas.
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::string program_arg = program;
  std::string app_dir_arg = app_dir;
  char* argv[] = {program_arg.data(), app_dir_arg.data(), nullptr};
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, &attributes, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    throw Error(Code::kUnavailable, "local scheduler: cannot start supervisor '" + program +
                                        "': " + std::strerror(spawned));
  }
  // The spawned process exits as soon as the forked supervisor has recorded itself.
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
  std::string output;
  try {
    output = read_file(log);
  } catch (const Error&) {
  }
  throw Error(Code::kUnavailable,
              "local scheduler: supervisor for '" + app_dir + "' failed to start: " + output);
}

}  // namespace sortie::local
