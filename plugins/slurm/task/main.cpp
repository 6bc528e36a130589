// sortie-slurm-task JOB_DIR ROLE: one replica of a role, started by `srun` in the batch script
// that the slurm scheduler writes. The replica is SLURM_PROCID (or, in an array job, the array
// task); the attempt is SORTIE_ATTEMPT. It runs the argv in <JOB_DIR>/tasks/ROLE/<replica>.argv
// with the environment in .env added (both NUL-separated, so values arrive byte-exact, never
// through a shell), and writes its output to <JOB_DIR>/logs/ROLE/<replica>/attempt-<n>/ (see
// replica_files.hpp) and its exit to `exit` there. Exits as the program did.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// The rank-0 host is known only once Slurm placed the job: `${rank0_host}` in args and env
// values, left by the scheduler, is replaced here and nowhere else.
std::string with_rank0_host(std::string text, const std::string& rank0_host) {
  static const std::string macro = "${rank0_host}";
  for (size_t at = text.find(macro); at != std::string::npos; at = text.find(macro, at)) {
    text.replace(at, macro.size(), rank0_host);
    at += rank0_host.size();
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: sortie-slurm-task JOB_DIR ROLE (run by the batch script)\n");
    return 2;
  }
  const std::string job_dir = argv[1];
  const std::string role = argv[2];
  const std::string replica = env_or("SORTIE_SLURM_UNIT", env_or("SLURM_PROCID", "0").c_str());
  const std::string attempt = env_or("SORTIE_ATTEMPT", "0");
  const std::string rank0_host = env_or("SORTIE_RANK0_HOST", "");
  const std::string task = job_dir + "/tasks/" + role + "/" + replica;
  std::vector<std::string> args = read_entries(task + ".argv");
  if (args.empty()) {
    std::fprintf(stderr, "sortie-slurm-task: %s.argv is empty\n", task.c_str());
    return 127;
  }
  for (std::string& arg : args) arg = with_rank0_host(arg, rank0_host);
  for (const std::string& pair : read_entries(task + ".env")) {
    const size_t equals = pair.find('=');
    if (equals == std::string::npos) continue;
    const std::string value = with_rank0_host(pair.substr(equals + 1), rank0_host);
    ::setenv(pair.substr(0, equals).c_str(), value.c_str(), 1);
  }
  ::setenv("SORTIE_REPLICA_ID", replica.c_str(), 1);

  sortie::slurm::ReplicaOutput output(job_dir + "/logs/" + role + "/" + replica + "/attempt-" +
                                      attempt);
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
    std::perror("sortie-slurm-task: pipe");
    return 127;
  }
  // Before the fork, so that no signal finds this process unprepared; exec resets the handler to
  // the default in the program.
  for (int signal : {SIGTERM, SIGINT, SIGHUP, SIGUSR1, SIGUSR2, SIGCONT}) {
    struct sigaction action {};
    action.sa_handler = outlive_signal;
    ::sigaction(signal, &action, nullptr);
  }
  const pid_t child = ::fork();
  if (child < 0) {
    std::perror("sortie-slurm-task: fork");
    return 127;
  }
  if (child == 0) {
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

  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  const sortie::slurm::ReplicaStream streams[2] = {sortie::slurm::ReplicaStream::kStdout,
                                                   sortie::slurm::ReplicaStream::kStderr};
  int open_streams = 2;
  char buffer[65536];
  while (open_streams > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) {
        output.write(streams[i], std::string_view(buffer, static_cast<size_t>(n)));
      } else {
        output.end(streams[i]);
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_streams;
      }
    }
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  output.finished(exit_code, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return exit_code;
}
