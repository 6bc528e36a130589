#include "supervisor_launch.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sortie/plugin.hpp>

#include "environment_allow_list.hpp"
#include "file_util.hpp"
#include "start_failure.hpp"
#include "submit_lock.hpp"

extern char** environ;

namespace sortie::local {

std::string supervisor_executable() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&supervisor_executable), &info) == 0 ||
      info.dli_fname == nullptr) {
    throw Error::internal("local scheduler: cannot locate its own library (dladdr failed)");
  }
  const std::string path = parent_directory(info.dli_fname) + "/" + SORTIE_LOCAL_SUPERVISOR_RELDIR +
                           "/sortie-local-supervisor";
  if (::access(path.c_str(), X_OK) != 0) {
    throw Error::failed_precondition("local scheduler: supervisor '" + path +
                                     "' is missing or not executable (" + std::strerror(errno) +
                                     "); reinstall sortie");
  }
  return path;
}

StartSignal SupervisorStarts::start(const std::string& app_dir, int lock_fd,
                                    bool inherit_environment) {
  const std::string program = supervisor_executable();
  int signal_fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, signal_fds) != 0) {
    throw Error::unavailable(std::string("local scheduler: socketpair: ") + std::strerror(errno));
  }
  StartSignal signal(signal_fds[0]);
  struct CloseReceiver {
    int fd;
    ~CloseReceiver() { ::close(fd); }
  } close_receiver{signal_fds[1]};

  // The starter opens <app_dir>/supervisor.log itself, so that creating it is not part of
  // schedule(): every inode created here is paid once per submitted app.
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_adddup2(&actions, lock_fd, kSubmitLockFd);
  posix_spawn_file_actions_adddup2(&actions, signal_fds[1], kStartSignalFd);
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
  std::vector<std::string> sortie_variables;
  std::vector<char*> sortie_environment;
  if (!inherit_environment) {
    for (const auto& [name, value] : allowed_environment({})) {
      sortie_variables.push_back(name + "=" + value);
    }
    for (std::string& variable : sortie_variables) sortie_environment.push_back(variable.data());
    sortie_environment.push_back(nullptr);
  }
  pid_t pid = 0;
  // glibc's posix_spawn returns only after the exec, with its error if the exec failed.
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, &attributes, argv,
                                    inherit_environment ? environ : sortie_environment.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned != 0) {
    throw Error::unavailable("local scheduler: cannot start supervisor '" + program +
                             "': " + std::strerror(spawned));
  }
  starters_.push_back(Starter{pid, app_dir});
  return signal;
}

bool SupervisorStarts::reap(const Starter& starter, bool block) {
  int status = 0;
  pid_t reaped;
  do {
    reaped = ::waitpid(starter.pid, &status, block ? 0 : WNOHANG);
  } while (reaped < 0 && errno == EINTR);
  if (reaped == 0) return false;
  // ECHILD: the host reaped it for us; the starter recorded any failure itself.
  if (reaped < 0) return true;
  if (WIFSIGNALED(status)) {
    // Killed before it could record anything: say so, with what it logged.
    std::string log;
    try {
      log = read_file(starter.app_dir + "/supervisor.log");
    } catch (const Error&) {
    }
    record_start_failure(starter.app_dir, "the supervisor's starter was killed by signal " +
                                              std::to_string(WTERMSIG(status)) +
                                              (log.empty() ? "" : ": " + log));
  }
  return true;
}

void SupervisorStarts::reap_finished() {
  starters_.erase(std::remove_if(starters_.begin(), starters_.end(),
                                 [](const Starter& starter) { return reap(starter, false); }),
                  starters_.end());
}

void SupervisorStarts::wait_for(const std::string& app_dir) {
  starters_.erase(std::remove_if(starters_.begin(), starters_.end(),
                                 [&](const Starter& starter) {
                                   return starter.app_dir == app_dir && reap(starter, true);
                                 }),
                  starters_.end());
}

SupervisorStarts::~SupervisorStarts() {
  for (const Starter& starter : starters_) reap(starter, true);
}

}  // namespace sortie::local
