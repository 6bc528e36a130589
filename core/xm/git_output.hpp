// File: core/xm/git_output.hpp (private to sortie_xm)
//
// git, run the way a launch may run it in a user's work tree: what the launch records
// (code_record.hpp) and which files its snapshot holds (workdir_files.hpp) both ask git.
#ifndef SORTIE_XM_GIT_OUTPUT_HPP
#define SORTIE_XM_GIT_OUTPUT_HPP

#include <cstddef>
#include <string>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm::detail {

struct GitOutput {
  bool started = false;  // false: git could not be run at all (not installed, not on PATH)
  int exit_status = -1;  // -1: killed (or stopped at max_bytes)
  std::string out;
  bool truncated = false;  // it wrote more than max_bytes; it was stopped there
};

// Runs `git -C dir ARGS` with no terminal prompt, no pager, no optional locks (a launch never
// blocks or disturbs the user's own git commands) and no fsmonitor, stdin and stderr on
// /dev/null, and keeps at most `max_bytes` of its stdout.
GitOutput git_output(const std::string& dir, const std::vector<std::string>& args,
                     size_t max_bytes);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

#endif  // SORTIE_XM_GIT_OUTPUT_HPP
