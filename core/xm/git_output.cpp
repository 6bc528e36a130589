#include "git_output.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

extern char** environ;

namespace sortie::xm::detail {

namespace {

// Runs git with `argv` (after "git"), stdout kept up to `max_bytes`, stderr up to 4 KiB.
GitOutput run_git(std::vector<std::string> argv, size_t max_bytes) {
  argv.insert(argv.begin(), "git");
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
  // stderr goes to an unnamed file read once git has ended: a second pipe could fill and stall.
  const int errors = ::memfd_create("git-stderr", MFD_CLOEXEC);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  if (errors >= 0) {
    posix_spawn_file_actions_adddup2(&actions, errors, 2);
  } else {
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  const int spawned =
      ::posix_spawnp(&pid, "git", &actions, nullptr, raw_argv.data(), raw_env.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (spawned != 0) {
    ::close(pipe_fds[0]);
    if (errors >= 0) ::close(errors);
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
  if (errors >= 0) {
    char text[4096];
    const ssize_t got = ::pread(errors, text, sizeof(text), 0);
    result.refused_ownership =
        got > 0 && std::string_view(text, static_cast<size_t>(got)).find("dubious ownership") !=
                       std::string_view::npos;
    ::close(errors);
  }
  return result;
}

}  // namespace

GitOutput git_output(const std::string& dir, const std::vector<std::string>& args, size_t max_bytes,
                     bool trust_owner) {
  std::vector<std::string> base = {
      "--no-optional-locks", "-C", dir, "-c", "core.fsmonitor=false", "-c", "core.quotePath=false"};
  if (trust_owner) base.insert(base.end(), {"-c", "safe.directory=" + dir});
  // The filter drivers any config defines, each emptied: git runs none of an empty driver.
  std::vector<std::string> list = base;
  list.insert(list.end(), {"config", "-z", "--name-only", "--get-regexp", "^filter\\."});
  const GitOutput filters = run_git(list, 1 << 20);
  std::vector<std::string> argv = base;
  for (size_t start = 0; start < filters.out.size();) {
    size_t end = filters.out.find('\0', start);
    if (end == std::string::npos) end = filters.out.size();
    const std::string key = filters.out.substr(start, end - start);
    const size_t dot = key.rfind('.');
    if (dot != std::string::npos && dot > 7) {
      const std::string driver = key.substr(0, dot);  // filter.NAME
      argv.insert(argv.end(), {"-c", driver + ".clean=", "-c", driver + ".smudge=", "-c",
                               driver + ".process=", "-c", driver + ".required=false"});
    }
    start = end + 1;
  }
  argv.insert(argv.end(), args.begin(), args.end());
  return run_git(argv, max_bytes);
}

}  // namespace sortie::xm::detail
