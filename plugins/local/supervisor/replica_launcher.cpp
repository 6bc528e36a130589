#include "replica_launcher.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>
#include <vector>

#include "file_util.hpp"

extern char** environ;

namespace sortie::local {
namespace {

// What the child reports through the close-on-exec pipe when it cannot exec.
struct ChildFailure {
  int step;  // kChdir or kExec
  int error;
};
constexpr int kChdir = 1;
constexpr int kExec = 2;

std::vector<std::string> merged_environment(const ReplicaLaunch& replica) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    merged[std::string(text.substr(0, equals))] = std::string(text.substr(equals + 1));
  }
  for (const auto& [name, value] : replica.env) merged[name] = value;
  std::vector<std::string> result;
  result.reserve(merged.size());
  for (const auto& [name, value] : merged) result.push_back(name + "=" + value);
  return result;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  result.reserve(strings.size() + 1);
  for (std::string& text : strings) result.push_back(text.data());
  result.push_back(nullptr);
  return result;
}

[[noreturn]] void fail_in_child(int report_fd, int step) {
  const ChildFailure failure{step, errno};
  [[maybe_unused]] const ssize_t ignored = ::write(report_fd, &failure, sizeof(failure));
  ::_exit(127);
}

// Runs in the forked child: async-signal-safe calls only until exec.
[[noreturn]] void exec_child(pid_t supervisor, int stdout_fd, int stderr_fd, int report_fd,
                             const char* cwd, char** argv, char** envp) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The supervisor may have died between fork() and prctl(); then nobody would kill us.
  if (::getppid() != supervisor) ::_exit(1);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGHUP, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  ::dup2(stdout_fd, STDOUT_FILENO);
  ::dup2(stderr_fd, STDERR_FILENO);
  if (cwd[0] != '\0' && ::chdir(cwd) != 0) fail_in_child(report_fd, kChdir);
  // execvp searches the PATH of the current environment, which must be the replica's.
  environ = envp;
  ::execvp(argv[0], argv);
  fail_in_child(report_fd, kExec);
}

void make_pipe(int fds[2], const std::string& what) {
  if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("cannot create a pipe for " + what);
}

}  // namespace

LaunchedReplica launch_replica(const ReplicaLaunch& replica) {
  std::vector<std::string> argv_strings = replica.argv;
  std::vector<std::string> env_strings = merged_environment(replica);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  const std::string what = "replica " + std::to_string(replica.id);

  int out[2], err[2], report[2];
  make_pipe(out, what);
  make_pipe(err, what);
  make_pipe(report, what);
  const pid_t supervisor = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("cannot fork " + what);
  if (pid == 0) {
    exec_child(supervisor, out[1], err[1], report[1], replica.cwd.c_str(), argv.data(),
               envp.data());
  }
  ::close(out[1]);
  ::close(err[1]);
  ::close(report[1]);
  // Set the group from the parent too, so it exists before we might signal it.
  ::setpgid(pid, pid);

  LaunchedReplica launched;
  launched.pid = pid;
  launched.stdout_fd = out[0];
  launched.stderr_fd = err[0];
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);
  ChildFailure failure{};
  ssize_t n;
  do {
    n = ::read(report[0], &failure, sizeof(failure));
  } while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n == static_cast<ssize_t>(sizeof(failure))) {
    launched.exec_error = failure.step == kChdir
                              ? "chdir '" + replica.cwd + "': " + std::strerror(failure.error)
                              : "exec '" + replica.argv[0] + "': " + std::strerror(failure.error);
  }
  return launched;
}

}  // namespace sortie::local
