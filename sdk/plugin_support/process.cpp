#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sortie/error.hpp>
#include <sortie/macros.hpp>
#include <sortie/process.hpp>

namespace sortie {
namespace {

// After fork() in a possibly multi-threaded host only async-signal-safe calls are allowed, so
// the supervisor formats its number by hand.
void write_exit_status(const char* temp_path, const char* exit_path, int status) {
  char text[16];
  char* end = text + sizeof(text);
  char* begin = end;
  do {
    *--begin = static_cast<char>('0' + status % 10);
    status /= 10;
  } while (status > 0);
  const int fd = ::open(temp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  const ssize_t written = ::write(fd, begin, static_cast<size_t>(end - begin));
  ::close(fd);
  if (written == end - begin) ::rename(temp_path, exit_path);
}

// The supervisor: leads a new session, starts the command, and only then sends its pid to the
// caller, so a stop right after the start reaches the command (held blocked until it can take
// SIGTERM) and not the supervisor (which ignores it). Then it waits and records the status.
// Leaves the supervisor only what it and its command need: /dev/null as stdin, the log as stdout
// and stderr, and the pid pipe. A forked supervisor would otherwise keep every descriptor of the
// caller (its stdout, a store's files) open for as long as the command runs, so that
// `x=$(sortie run ...)` or `| cat` waits for the command (ABI-11). Returns the pid pipe's new fd.
int keep_only_own_descriptors(int log_fd, int pid_fd) {
  const int pid_out = ::fcntl(pid_fd, F_DUPFD, 10);  // out of the way of 0, 1 and 2
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  ::dup2(log_fd, STDOUT_FILENO);
  ::dup2(log_fd, STDERR_FILENO);
  if (pid_out < 0) return -1;
  ::close_range(3, static_cast<unsigned>(pid_out) - 1, 0);
  ::close_range(static_cast<unsigned>(pid_out) + 1, ~0U, 0);
  return pid_out;
}

[[noreturn]] void supervise(char* const* argv, char* const* envp, int log_fd, int caller_pid_fd,
                            const char* temp_path, const char* exit_path) {
  const int pid_fd = keep_only_own_descriptors(log_fd, caller_pid_fd);
  ::setsid();  // the supervisor's pid is now the group's id
  sigset_t term;
  ::sigemptyset(&term);
  ::sigaddset(&term, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &term, nullptr);
  const pid_t command = ::fork();
  if (command == 0) {
    ::signal(SIGTERM, SIG_DFL);
    sigset_t none;  // the command starts with no signal blocked, whatever the host's thread had
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::close(pid_fd);
    ::execvpe(argv[0], argv, envp);
    ::_exit(127);
  }
  ::signal(SIGTERM, SIG_IGN);  // stop_process signals the group: only the command should end
  ::sigprocmask(SIG_UNBLOCK, &term, nullptr);
  const pid_t self = ::getpid();
  if (::write(pid_fd, &self, sizeof(self)) != sizeof(self) && command > 0) ::kill(command, SIGKILL);
  ::close(pid_fd);
  int status = 127;
  if (command > 0) {
    while (::waitpid(command, &status, 0) < 0 && errno == EINTR) {
    }
    status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  write_exit_status(temp_path, exit_path, status);
  ::_exit(0);
}

}  // namespace

void start_process(const std::vector<std::string>& argv, const std::string& path,
                   const StringPairs& env) {
  if (argv.empty() || argv[0].empty()) throw Error::invalid_argument("no command to start");
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  // The caller's environment with `env` set over it, built before fork (after it, in a host
  // with threads, only async-signal-safe calls are allowed).
  std::vector<std::string> variables;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    const std::string_view text(*variable);
    const std::string_view name = text.substr(0, text.find('='));
    const bool replaced =
        std::any_of(env.begin(), env.end(), [&](const auto& pair) { return pair.first == name; });
    if (!replaced) variables.emplace_back(text);
  }
  for (const auto& [name, value] : env) variables.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& variable : variables) envp.push_back(variable.data());
  envp.push_back(nullptr);
  const std::string temp_path = path + ".exit.tmp", exit_path = path + ".exit";
  const std::string log_path = path + ".log";
  const int log_fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) throw Error::invalid_argument("cannot write the log " + log_path);
  int pid_pipe[2];
  if (::pipe2(pid_pipe, O_CLOEXEC) != 0) {
    ::close(log_fd);
    throw Error::internal("pipe failed");
  }
  // The intermediate child exits at once, so the host never has to reap the supervisor.
  const pid_t intermediate = ::fork();
  if (intermediate == 0) {
    if (::fork() == 0) {
      supervise(args.data(), envp.data(), log_fd, pid_pipe[1], temp_path.c_str(),
                exit_path.c_str());
    }
    ::_exit(0);
  }
  ::close(log_fd);
  ::close(pid_pipe[1]);
  pid_t supervisor = -1;
  if (intermediate > 0) {
    if (::read(pid_pipe[0], &supervisor, sizeof(supervisor)) != sizeof(supervisor)) supervisor = -1;
    ::waitpid(intermediate, nullptr, 0);
  }
  ::close(pid_pipe[0]);
  if (supervisor <= 0) throw Error::internal("cannot start " + argv[0] + ": fork failed");
  if (!(std::ofstream(path + ".pid") << supervisor)) {
    throw Error::invalid_argument("cannot write " + path + ".pid");
  }
}

ReplicaCommand replica_command(const Role& role, const std::string& app_id, int64_t replica_id) {
  MacroValues macros;
  macros.set("app_id", app_id)
      .set("replica_id", std::to_string(replica_id))
      .set("num_replicas", std::to_string(role.num_replicas))
      .set("role_name", role.name);
  ReplicaCommand command{{role.entrypoint}, {}};
  for (const std::string& arg : role.args) command.argv.push_back(macros.apply(arg));
  for (const auto& [name, value] : role.env) command.env.emplace_back(name, macros.apply(value));
  return command;
}

std::optional<int> process_exit_status(const std::string& path) {
  int status = 0;
  if (std::ifstream(path + ".exit") >> status) return status;
  return std::nullopt;
}

std::optional<AppState> process_state(const std::string& path) {
  if (!std::ifstream(path + ".pid")) return std::nullopt;
  const std::optional<int> status = process_exit_status(path);
  if (!status) return AppState::kRunning;
  if (*status == 0) return AppState::kSucceeded;
  return std::ifstream(path + ".cancelled") ? AppState::kCancelled : AppState::kFailed;
}

bool stop_process(const std::string& path) {
  pid_t pid = 0;
  if (!(std::ifstream(path + ".pid") >> pid)) return false;
  if (process_exit_status(path)) return true;  // ended: its state is final
  std::ofstream(path + ".cancelled").flush();
  if (pid > 0) ::kill(-pid, SIGTERM);
  return true;
}

}  // namespace sortie
