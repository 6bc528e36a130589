// The `bazel` command the packagers run: SORTIE_BAZEL ("bazel" when unset) is the program,
// optionally followed by Bazel startup options, separated by spaces (e.g.
// "bazel --output_user_root=/tmp/bazel-ci"); use a wrapper script for anything fancier.
#ifndef SORTIE_BAZEL_BAZEL_COMMAND_HPP
#define SORTIE_BAZEL_BAZEL_COMMAND_HPP

#include <string>
#include <utility>
#include <vector>

namespace sortie::bazel {

class BazelCommand {
 public:
  // Resolves the program on PATH. Throws FAILED_PRECONDITION, naming `bazel` and the set-up
  // script, when it is not there.
  static BazelCommand from_environment();

  enum class Progress { kLog, kQuiet };
  struct Outcome {
    bool succeeded = false;
    std::string out;                     // stdout
    std::vector<std::string> err_lines;  // the last lines of stderr
  };

  // Runs `bazel STARTUP... COMMAND ARGS...` in `directory`. With Progress::kLog every stderr
  // line also goes to the host's log (INFO); with kQuiet it goes there at DEBUG.
  Outcome run(const std::string& command, const std::vector<std::string>& args,
              const std::string& directory, Progress progress) const;

  // "bazel build -c opt -- //a:b", for messages.
  std::string describe(const std::string& command, const std::vector<std::string>& args) const;

 private:
  BazelCommand(std::string program, std::vector<std::string> startup_options)
      : program_(std::move(program)), startup_options_(std::move(startup_options)) {}

  std::string program_;
  std::vector<std::string> startup_options_;
};

// At most the last `count` lines of `lines`, joined with '\n'.
std::string last_lines(const std::vector<std::string>& lines, size_t count);

}  // namespace sortie::bazel

#endif  // SORTIE_BAZEL_BAZEL_COMMAND_HPP
