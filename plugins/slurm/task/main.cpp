// sortie-slurm-task JOB_DIR ROLE: one replica of a role, started by `srun` in the batch script
// that the slurm scheduler writes. The replica is SLURM_PROCID (or, in an array job, the array
// task); the attempt is SORTIE_ATTEMPT. It runs the argv in <JOB_DIR>/tasks/ROLE/<replica>.argv
// with the environment in .env added (both NUL-separated, so values arrive byte-exact, never
// through a shell), and writes its output to <JOB_DIR>/logs/ROLE/<replica>/attempt-<n>/ (see
// replica_files.hpp) and its exit to `exit` there, once every process the program left running
// has been ended too (docs/slurm-scheduler.md, "An attempt ends with all of its processes").
// Exits as the program did.
//
// sortie-slurm-task --free-port: prints a TCP port that is free on this node now (bound and
// released), which the batch script runs on the rank-0 host for ${free_port}.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sortie/macros.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "process_tree.hpp"
#include "read_only_view.hpp"
#include "replica_files.hpp"

namespace {

// Slurm signals every process of a step itself (its proctrack plugin: all descendants with
// linuxproc and cgroup, the task's process group with pgid, where the program stays), so the
// program gets each signal once, directly; this process only survives them, to relay its output
// and record how it ended. Forwarding them too delivered them twice: a checkpoint on SIGUSR1 ran
// twice (SlurmCluster.TimeLimitRetriesSpendTheTimeoutBudgetOnly, once in CI).
void outlive_signal(int /*signal*/) {}

std::vector<std::string> read_entries(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "sortie-slurm-task: cannot read %s: %s\n", path.c_str(),
                 std::strerror(errno));
    std::exit(127);
  }
  std::vector<std::string> entries;
  std::string entry;
  while (std::getline(in, entry, '\0')) entries.push_back(entry);
  return entries;
}

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// A port the kernel chose for a socket bound to port 0 on every address (IPv6 and IPv4 at once
// where the node has IPv6, as a rendezvous store listens), free until it is closed.
int free_port() {
  for (const int family : {AF_INET6, AF_INET}) {
    const int fd = ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    sockaddr_storage address{};
    socklen_t size = 0;
    if (family == AF_INET6) {
      const int v6_only = 0;
      ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6_only, sizeof(v6_only));
      auto* v6 = reinterpret_cast<sockaddr_in6*>(&address);
      v6->sin6_family = AF_INET6;
      v6->sin6_addr = in6addr_any;
      size = sizeof(sockaddr_in6);
    } else {
      auto* v4 = reinterpret_cast<sockaddr_in*>(&address);
      v4->sin_family = AF_INET;
      v4->sin_addr.s_addr = htonl(INADDR_ANY);
      size = sizeof(sockaddr_in);
    }
    int port = -1;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), size) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) == 0) {
      port = ntohs(family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&address)->sin6_port
                                      : reinterpret_cast<sockaddr_in*>(&address)->sin_port);
    }
    ::close(fd);
    if (port > 0) return port;
  }
  return -1;
}

using sortie::slurm::ReplicaOutput;
using sortie::slurm::ReplicaStream;

// How long the processes a program left running get, after SIGTERM, to end before SIGKILL.
constexpr int64_t kLeftoverGraceNs = 5'000'000'000;
// While they are being killed, how often to look again for processes: one forked in the
// meantime is re-parented to this process without a SIGCHLD.
constexpr int kRescanMs = 100;

int64_t monotonic_ns() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// Reads what is ready on a pipe of the program into its log; at EOF closes it (fd becomes -1).
// `drain`: read until nothing is left (the pipe is then non-blocking), not just once.
void relay(int& fd, ReplicaStream stream, ReplicaOutput& output, bool drain) {
  char buffer[65536];
  while (fd >= 0) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      output.write(stream, std::string_view(buffer, static_cast<size_t>(n)));
      if (drain) continue;
      return;
    }
    // EOF, or (draining) EAGAIN: a process outside the replica's tree was handed the pipe, and
    // what it writes from now on is not the replica's output.
    output.end(stream);
    ::close(fd);
    fd = -1;
  }
}

// Relays the program's output until the program has ended and, after it, every process it left
// running (its tree, which as subreaper this process keeps): they get SIGTERM when the program
// ends and SIGKILL kLeftoverGraceNs later. Only then is the attempt over (its exit recorded, the
// step ended, a retry free to start), so no process of an attempt outlives it or runs beside
// the next one, and a pipe they hold never keeps the attempt open. Returns the program's wait
// status: what it left behind does not change how the attempt ended.
int relay_until_all_ended(pid_t program, int out_fd, int err_fd, int signal_fd,
                          ReplicaOutput& output) {
  int fds[2] = {out_fd, err_fd};
  const ReplicaStream streams[2] = {ReplicaStream::kStdout, ReplicaStream::kStderr};
  std::optional<int> program_status;
  int64_t kill_at = 0;
  bool killed = false;
  bool children_left = true;
  while (!program_status || children_left) {
    int timeout_ms = -1;
    if (program_status) {
      const int64_t left = kill_at - monotonic_ns();
      timeout_ms = left > 0 ? static_cast<int>((left + 999'999) / 1'000'000) : kRescanMs;
    }
    pollfd polled[3] = {{fds[0], POLLIN, 0}, {fds[1], POLLIN, 0}, {signal_fd, POLLIN, 0}};
    if (::poll(polled, 3, timeout_ms) > 0) {
      for (int i = 0; i < 2; ++i) {
        if (polled[i].revents != 0) relay(fds[i], streams[i], output, false);
      }
      signalfd_siginfo info{};
      while (::read(signal_fd, &info, sizeof(info)) > 0) {
      }
    }
    int status = 0;
    pid_t ended;
    while ((ended = ::waitpid(-1, &status, WNOHANG)) > 0) {
      if (ended != program) continue;  // one it left behind, re-parented here
      program_status = status;
      kill_at = monotonic_ns() + kLeftoverGraceNs;
      const size_t left = sortie::slurm::signal_descendants(::getpid(), SIGTERM);
      if (left > 0) {
        std::fprintf(stderr,
                     "sortie-slurm-task: the program ended and left %zu process(es) running: "
                     "sent them SIGTERM, SIGKILL in %lld s\n",
                     left, static_cast<long long>(kLeftoverGraceNs / 1'000'000'000));
      }
    }
    children_left = !(ended < 0 && errno == ECHILD);
    if (program_status && children_left && monotonic_ns() >= kill_at) {
      const size_t left = sortie::slurm::signal_descendants(::getpid(), SIGKILL);
      if (left > 0 && !killed) {
        std::fprintf(stderr, "sortie-slurm-task: sent SIGKILL to %zu process(es) left running\n",
                     left);
      }
      killed = killed || left > 0;
    }
  }
  for (int i = 0; i < 2; ++i) {
    if (fds[i] >= 0) ::fcntl(fds[i], F_SETFL, O_NONBLOCK);
    relay(fds[i], streams[i], output, true);
  }
  return *program_status;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string_view(argv[1]) == "--free-port") {
    const int port = free_port();
    if (port < 0) {
      std::fprintf(stderr,
                   "sortie-slurm-task: cannot bind a TCP socket to choose ${free_port}: %s\n",
                   std::strerror(errno));
      return 1;
    }
    std::printf("%d\n", port);
    return 0;
  }
  const bool read_only = argc == 5 && std::string_view(argv[3]) == "--read-only";
  if (argc != 3 && !read_only) {
    std::fprintf(stderr,
                 "usage: sortie-slurm-task JOB_DIR ROLE [--read-only DIR] (run by the batch "
                 "script), or sortie-slurm-task --free-port\n");
    return 2;
  }
  const std::string job_dir = argv[1];
  const std::string role = argv[2];
  const std::string replica = env_or("SORTIE_SLURM_UNIT", env_or("SLURM_PROCID", "0").c_str());
  const std::string attempt = env_or("SORTIE_ATTEMPT", "0");
  // Known only once Slurm placed the job and the batch script started: ${rank0_host} and
  // ${free_port} in args and env values, left by the scheduler, are replaced here and nowhere else.
  sortie::MacroValues node_macros;
  node_macros.set("rank0_host", env_or("SORTIE_RANK0_HOST", ""))
      .set("free_port", env_or("SORTIE_FREE_PORT", ""));
  const std::string task = job_dir + "/tasks/" + role + "/" + replica;
  std::vector<std::string> args = read_entries(task + ".argv");
  if (args.empty()) {
    std::fprintf(stderr, "sortie-slurm-task: %s.argv is empty\n", task.c_str());
    return 127;
  }
  for (std::string& arg : args) arg = node_macros.apply(arg);
  for (const std::string& pair : read_entries(task + ".env")) {
    const size_t equals = pair.find('=');
    if (equals == std::string::npos) continue;
    const std::string value = node_macros.apply(pair.substr(equals + 1));
    ::setenv(pair.substr(0, equals).c_str(), value.c_str(), 1);
  }
  ::setenv("SORTIE_REPLICA_ID", replica.c_str(), 1);

  const std::string attempt_dir = job_dir + "/logs/" + role + "/" + replica + "/attempt-" + attempt;
  sortie::slurm::ReplicaOutput output(attempt_dir);
  ::setenv("SORTIE_METRICS_FILE", (attempt_dir + "/" + sortie::slurm::kMetricsFileName).c_str(), 1);
  // Before any other process or thread: a user namespace is entered single-threaded only.
  if (read_only) {
    const std::string why = sortie::plugins_common::enter_read_only_view({argv[4]});
    if (!why.empty()) {
      output.write(sortie::slurm::ReplicaStream::kStderr,
                   "sortie-slurm-task: run option read_only_workdir: " + why +
                       " (run the experiment with live_workdir, or allow user namespaces on the "
                       "nodes)\n");
      output.finished(126, 0);
      return 126;
    }
  }
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    std::perror("sortie-slurm-task: pipe");
    return 127;
  }
  // Whatever the program leaves behind (orphans, a setsid()) is re-parented to this process, so
  // it stays in the tree that is killed when the program ends (and that Slurm's proctrack sees).
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Before the fork, so that no signal finds this process unprepared; exec resets the handler to
  // the default in the program.
  for (int signal : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGCONT}) {
    struct sigaction action {};
    action.sa_handler = outlive_signal;
    ::sigaction(signal, &action, nullptr);
  }
  sigset_t child_ended;
  sigset_t unblocked;
  ::sigemptyset(&child_ended);
  ::sigaddset(&child_ended, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &child_ended, &unblocked);
  const int signal_fd = ::signalfd(-1, &child_ended, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd < 0) {
    std::perror("sortie-slurm-task: signalfd");
    return 127;
  }
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("sortie-slurm-task: fork");
    return 127;
  }
  if (child == 0) {
    ::sigprocmask(SIG_SETMASK, &unblocked, nullptr);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_pipe[1], STDERR_FILENO);
    std::vector<char*> exec_argv;
    for (std::string& arg : args) exec_argv.push_back(arg.data());
    exec_argv.push_back(nullptr);
    ::execvp(exec_argv[0], exec_argv.data());
    std::fprintf(stderr, "sortie-slurm-task: cannot run '%s': %s\n", exec_argv[0],
                 std::strerror(errno));
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  output.started(::getpid());

  const int status = relay_until_all_ended(child, out_pipe[0], err_pipe[0], signal_fd, output);
  const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  output.finished(exit_code, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return exit_code;
}
