// File: tests/cli/cli_harness.hpp
//
// Runs the real `sortie` binary (from the stage tree) as a separate process, the way a user in
// another shell would, inside a sandbox: its own state dir, XDG dirs and working directory, so
// tests neither see nor disturb anything else on the machine.
#ifndef SORTIE_TESTS_CLI_HARNESS_HPP
#define SORTIE_TESTS_CLI_HARNESS_HPP

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sortie::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class CliSandbox {
 public:
  CliSandbox();
  ~CliSandbox();
  CliSandbox(const CliSandbox&) = delete;
  CliSandbox& operator=(const CliSandbox&) = delete;

  // Runs `sortie ARGS...` to completion with the sandbox environment plus `extra_env`.
  CommandResult sortie(const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& extra_env = {}) const;
  // Starts `sortie ARGS...`, calls `ready(stdout so far)` every 20 ms until it returns true (at
  // most ~10 s), then sends `signal` and waits for the process to end.
  CommandResult sortie_interrupted(const std::vector<std::string>& args, int signal,
                                   const std::function<bool(const std::string&)>& ready) const;
  // Runs every command at once, each `sortie ARGS...` its own process, as that many shells
  // would; returns their results in order.
  std::vector<CommandResult> sortie_concurrently(
      const std::vector<std::vector<std::string>>& commands) const;
  // Polls `sortie status HANDLE --json` until the state is terminal (bounded by `attempts`
  // tries 50 ms apart) and returns the last JSON printed.
  std::string wait_terminal(const std::string& handle, int attempts = 400) const;

  const std::string& root() const { return root_; }  // scratch directory, removed afterwards
  std::string write_file(const std::string& relative, const std::string& content) const;

 private:
  // Starts `sortie ARGS...` with stdout and stderr in <root>/<output>.out and .err; returns the
  // pid.
  int spawn(const std::vector<std::string>& args,
            const std::map<std::string, std::string>& extra_env,
            const std::string& output = "last") const;
  CommandResult finish(int pid, const std::string& output = "last") const;
  std::string root_;
};

// The value of a top-level string member in a JSON text ("state" -> "RUNNING"); "" if absent.
std::string json_string_member(const std::string& json, const std::string& name);

// The first line of a command's output (`sortie run` prints the handle there).
std::string first_line(const std::string& text);

// True while a process with this pid exists (zombies included).
bool process_exists(long pid);

}  // namespace sortie::testing

#endif  // SORTIE_TESTS_CLI_HARNESS_HPP
