#include "replica_launcher.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sortie/plugin.hpp>
#include <vector>

#include "containment.hpp"
#include "file_util.hpp"

extern char** environ;

namespace sortie::local {
namespace {

// The open-file limit the supervisor was started with, restored in each replica.
rlimit g_replica_fd_limit{RLIM_INFINITY, RLIM_INFINITY};
bool g_fd_limit_raised = false;

// What the child reports: its pid on the host, and why it could not exec. vfork() shares our
// memory until the child execs or exits, so the child writes this directly; no pipe is needed.
struct ChildReport {
  int step;  // kJoinCgroup, kChdir or kExec, 0 when exec succeeded
  int error;
  char host_pid[24];  // the /proc/self link: differs from the pid we see in a PID namespace
};
constexpr int kJoinCgroup = 1;
constexpr int kChdir = 2;
constexpr int kExec = 3;

std::vector<std::string> merged_environment(const ReplicaLaunch& replica, const std::string& marker,
                                            std::string* path) {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    merged[std::string(text.substr(0, equals))] = std::string(text.substr(equals + 1));
  }
  for (const auto& [name, value] : replica.env) merged[name] = value;
  merged[kMarkerVariable] = marker;
  const auto found = merged.find("PATH");
  *path = found != merged.end() ? found->second : "/usr/local/bin:/usr/bin:/bin";
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

// execvp's search, done before forking and against the replica's own PATH (the child cannot
// safely search after vfork). Relative PATH entries and a program containing '/' are relative
// to the replica's cwd, as they would be for execvp in the child. Sets *error (ENOENT, EACCES)
// and returns "" when nothing executable is found.
std::string resolve_program(const std::string& program, const std::string& path,
                            const std::string& cwd, int* error) {
  const auto under_cwd = [&](const std::string& name) {
    return name.empty() || name[0] == '/' || cwd.empty() ? name : cwd + "/" + name;
  };
  if (program.find('/') != std::string::npos) return program;
  *error = ENOENT;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string dir = path.substr(start, end - start);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    struct stat info {};
    const std::string checked = under_cwd(candidate);
    if (::stat(checked.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
      if (::access(checked.c_str(), X_OK) == 0) return candidate;
      *error = EACCES;
    }
    start = end + 1;
  }
  return "";
}

// Runs in the vforked child, on the parent's memory: system calls only, no allocation, and it
// never returns.
[[noreturn]] void exec_child(pid_t supervisor, int cgroup_procs_fd, int stdout_fd, int stderr_fd,
                             volatile ChildReport* report, const char* cwd, const char* program,
                             char** argv, char** envp) {
  // Joined before anything else runs, so whatever the replica starts is born in the cgroup.
  if (cgroup_procs_fd >= 0 && ::write(cgroup_procs_fd, "0", 1) != 1) {
    report->error = errno;
    report->step = kJoinCgroup;
    ::_exit(127);
  }
  ::setpgid(0, 0);
  ::readlink("/proc/self", const_cast<char*>(report->host_pid), sizeof(report->host_pid) - 1);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The supervisor may have died between fork() and prctl(); then nobody would kill us.
  if (::getppid() != supervisor) ::_exit(1);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGHUP, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  ::signal(SIGXFSZ, SIG_DFL);
  if (g_fd_limit_raised) ::setrlimit(RLIMIT_NOFILE, &g_replica_fd_limit);
  ::dup2(stdout_fd, STDOUT_FILENO);
  ::dup2(stderr_fd, STDERR_FILENO);
  if (cwd[0] != '\0' && ::chdir(cwd) != 0) {
    report->error = errno;
    report->step = kChdir;
    ::_exit(127);
  }
  ::execve(program, argv, envp);
  report->error = errno;
  report->step = kExec;
  ::_exit(127);
}

// Everything the child needs, prepared before vfork so that the child only makes system calls.
struct ChildSetup {
  pid_t supervisor;
  int cgroup_procs_fd;
  int stdout_fd;
  int stderr_fd;
  const char* cwd;
  const char* program;
  char** argv;
  char** envp;
};

// Kept apart from its caller so that no caller variable lives across vfork().
__attribute__((noinline)) pid_t vfork_child(const ChildSetup* setup, volatile ChildReport* report) {
  const pid_t pid = ::vfork();
  if (pid == 0) {
    exec_child(setup->supervisor, setup->cgroup_procs_fd, setup->stdout_fd, setup->stderr_fd,
               report, setup->cwd, setup->program, setup->argv, setup->envp);
  }
  return pid;
}

void make_pipe(int fds[2], const std::string& what) {
  if (::pipe2(fds, O_CLOEXEC) == 0) return;
  if (errno == EMFILE) throw open_file_limit_reached(what);
  throw_errno("cannot create a pipe for " + what);
}

}  // namespace

Error open_file_limit_reached(const std::string& what) {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  return Error::resource_exhausted(
      "cannot create a pipe for " + what + ": the supervisor reached its open-file limit (" +
      std::to_string(limit.rlim_cur) +
      ", 2 per replica); raise the hard limit (ulimit -Hn) or run fewer replicas");
}

void raise_fd_limit_for_replicas() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == limit.rlim_max) return;
  g_replica_fd_limit = limit;
  limit.rlim_cur = limit.rlim_max;
  g_fd_limit_raised = ::setrlimit(RLIMIT_NOFILE, &limit) == 0;
}

LaunchedReplica launch_replica(const ReplicaLaunch& replica, const std::string& marker,
                               int cgroup_procs_fd) {
  std::string path;
  std::vector<std::string> argv_strings = replica.argv;
  std::vector<std::string> env_strings = merged_environment(replica, marker, &path);
  std::vector<char*> argv = pointers(argv_strings);
  std::vector<char*> envp = pointers(env_strings);
  const std::string what = "replica " + std::to_string(replica.id);
  int resolve_error = 0;
  const std::string program = resolve_program(replica.argv[0], path, replica.cwd, &resolve_error);
  // Nothing to run is reported exactly as a failed exec: the child exits 127 without exec'ing.
  const char* program_path = program.empty() ? "/nonexistent/sortie-unresolved" : program.c_str();

  int out[2], err[2];
  make_pipe(out, what);
  make_pipe(err, what);
  volatile ChildReport report{0, 0, {}};
  const ChildSetup setup{::getpid(),          cgroup_procs_fd, out[1],      err[1],
                         replica.cwd.c_str(), program_path,    argv.data(), envp.data()};
  // vfork: no page-table copy, and we resume as soon as the child has exec'd (or exited).
  const pid_t pid = vfork_child(&setup, &report);
  if (pid < 0) throw_errno("cannot fork " + what);
  ::close(out[1]);
  ::close(err[1]);
  // Set the group from the parent too, so it exists before we might signal it.
  ::setpgid(pid, pid);

  LaunchedReplica launched;
  launched.pid = pid;
  launched.host_pid =
      static_cast<pid_t>(std::strtol(const_cast<const char*>(report.host_pid), nullptr, 10));
  if (launched.host_pid <= 0) launched.host_pid = pid;
  launched.stdout_fd = out[0];
  launched.stderr_fd = err[0];
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, O_NONBLOCK);
  if (report.step == kJoinCgroup) {
    launched.exec_error =
        "cannot join the app's cgroup: " + std::string(std::strerror(report.error));
  } else if (report.step == kChdir) {
    launched.exec_error = "chdir '" + replica.cwd + "': " + std::strerror(report.error);
  } else if (report.step == kExec) {
    const int error = program.empty() ? resolve_error : report.error;
    launched.exec_error = "exec '" + replica.argv[0] + "': " + std::strerror(error);
  }
  return launched;
}

}  // namespace sortie::local
