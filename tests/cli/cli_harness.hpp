// File: tests/cli/cli_harness.hpp
//
// Runs the real `sortie` as a user in another shell would: installed into a prefix (the
// install_test_prefix fixture), found by name through PATH, started from a working directory
// outside the source and build trees, inside a sandbox: its own state dir, XDG dirs and working
// directory, so tests neither see nor disturb anything else on the machine.
#ifndef SORTIE_TESTS_CLI_HARNESS_HPP
#define SORTIE_TESTS_CLI_HARNESS_HPP

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sortie::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// How the sandbox starts `sortie`.
struct Invocation {
  // A name is searched for in PATH; a path (with a '/') is run as it is, a relative one from the
  // sandbox's working directory.
  std::string program = "sortie";
  // PATH is this directory followed by the system's (/usr/local/bin, /usr/bin, /bin, ...).
  std::string path_dir = std::string(SORTIE_TEST_PREFIX) + "/bin";
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
                                   const std::function<bool(const std::string&)>& ready,
                                   const std::map<std::string, std::string>& extra_env = {}) const;
  // Runs every command at once, each `sortie ARGS...` its own process, as that many shells
  // would; returns their results in order.
  std::vector<CommandResult> sortie_concurrently(
      const std::vector<std::vector<std::string>>& commands) const;
  // Polls `sortie status HANDLE --json` until the state is terminal (bounded by `attempts`
  // tries 50 ms apart) and returns the last JSON printed.
  std::string wait_terminal(const std::string& handle, int attempts = 400) const;

  // Every later command starts `sortie` this way.
  void invoke_as(Invocation invocation) { invocation_ = std::move(invocation); }

  const std::string& root() const { return root_; }   // scratch directory, removed afterwards
  std::string cwd() const { return root_ + "/cwd"; }  // where every command starts
  std::string write_file(const std::string& relative, const std::string& content) const;

 private:
  // Starts `sortie ARGS...` with stdout and stderr in <root>/<output>.out and .err; returns the
  // pid.
  int spawn(const std::vector<std::string>& args,
            const std::map<std::string, std::string>& extra_env,
            const std::string& output = "last") const;
  CommandResult finish(int pid, const std::string& output = "last") const;
  std::string root_;
  Invocation invocation_;
};

// The value of a top-level string member in a JSON text ("state" -> "RUNNING"); "" if absent.
std::string json_string_member(const std::string& json, const std::string& name);

// The first line of a command's output (`sortie run` prints the handle there).
std::string first_line(const std::string& text);

// The id in `sortie launch`'s first line ("experiment 3 'title'"); "" if absent.
std::string experiment_id(const std::string& out);

// The (full name, handle) of each "  work unit N: FULL_NAME HANDLE" line of `sortie launch`.
std::vector<std::pair<std::string, std::string>> launched_jobs(const std::string& out);

// True while a process with this pid exists (zombies included).
bool process_exists(long pid);

}  // namespace sortie::testing

#endif  // SORTIE_TESTS_CLI_HARNESS_HPP
