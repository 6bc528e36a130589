#include "git_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

extern char** environ;

namespace sortie::xm::detail {

GitOutput git_output(const std::string& dir, const std::vector<std::string>& args,
                     size_t max_bytes) {
  std::vector<std::string> argv = {"git", "--no-optional-locks",  "-C", dir,
                                   "-c",  "core.fsmonitor=false", "-c", "core.quotePath=false"};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> raw_argv;
  for (std::string& arg : argv) raw_argv.push_back(arg.data());
  raw_argv.push_back(nullptr);
  std::vector<std::string> env = {"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "LC_ALL=C"};
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (text.rfind("GIT_TERMINAL_PROMPT=", 0) != 0 && text.rfind("GIT_PAGER=", 0) != 0 &&
        text.rfind("LC_ALL=", 0) != 0) {
      env.emplace_back(text);
    }
  }
  std::vector<char*> raw_env;
  for (std::string& entry : env) raw_env.push_back(entry.data());
  raw_env.push_back(nullptr);

  GitOutput result;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawnp(&pid, "git", &actions, nullptr, raw_argv.data(), raw_env.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    return result;
  }
  result.started = true;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(pipe_fds[0], buffer, sizeof(buffer));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    const size_t room = max_bytes - result.out.size();
    result.out.append(buffer, std::min(room, static_cast<size_t>(got)));
    if (static_cast<size_t>(got) > room) {
      result.truncated = true;
      ::kill(pid, SIGKILL);
      break;
    }
  }
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  return result;
}

}  // namespace sortie::xm::detail
