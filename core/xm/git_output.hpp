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
  // git refused the repository as another user's ("dubious ownership", its safe.directory rule)
  bool refused_ownership = false;
};

// Runs `git -C dir ARGS` with no terminal prompt, no pager, no optional locks (a launch never
// blocks or disturbs the user's own git commands), stdin on /dev/null, and keeps at most
// `max_bytes` of its stdout. No program the repository's config names runs: fsmonitor is off and
// every clean, smudge and process filter is emptied (callers also pass --no-ext-diff and
// --no-textconv to diff). `trust_owner` adds safe.directory=DIR, for a repository git refused as
// another user's: with those programs off, reading its file list runs nothing of theirs.
GitOutput git_output(const std::string& dir, const std::vector<std::string>& args, size_t max_bytes,
                     bool trust_owner = false);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

#endif  // SORTIE_XM_GIT_OUTPUT_HPP
