// Runs a child process with no shell: stdin from /dev/null, stdout captured, stderr handed over
// line by line as it comes. Nothing reaches the caller's own stdout or stderr.
#ifndef SORTIE_BAZEL_SUBPROCESS_HPP
#define SORTIE_BAZEL_SUBPROCESS_HPP

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::bazel {

struct ProcessOutput {
  int exit_code = 0;  // 128 + N when killed by signal N
  std::string out;    // everything written to stdout
};

// Runs `program` (an absolute path) with `args` (argv[1..]) in `directory`, calling
// on_stderr_line for each line the child writes to stderr (without its '\n'). Throws INTERNAL
// when no process can be started.
ProcessOutput run_process(const std::string& program, const std::vector<std::string>& args,
                          const std::string& directory,
                          const std::function<void(std::string_view)>& on_stderr_line);

}  // namespace sortie::bazel

#endif  // SORTIE_BAZEL_SUBPROCESS_HPP
