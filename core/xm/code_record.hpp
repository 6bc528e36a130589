// File: core/xm/code_record.hpp (private to sortie_xm)
//
// What an experiment's launch ran, recorded once with the experiment so that a number can be
// traced to its code later (docs/experiments.md, "What each unit ran"): the launching command,
// the text of the script or experiment file it ran, and, for a launch directory inside a git work
// tree, the commit, the branch, the uncommitted diff and the untracked files, each bounded by
// docs/limits.md.
#ifndef SORTIE_XM_CODE_RECORD_HPP
#define SORTIE_XM_CODE_RECORD_HPP

#include <string>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm::detail {

// A "sortie.code_record/1" JSON text: this process's command line (/proc/self/cmdline, whether
// it is `sortie launch` or a Python launcher), `script` (the launcher script or experiment file;
// empty: none) and the git state of `launch_dir`. Never throws for what git or the file system
// refuse: the record says what it could not read instead (`git.error`, `script.error`).
std::string code_record_json(const std::string& launch_dir, const std::string& script);

// `record` with every occurrence of `secrets` (longest first) in its command, script text and
// diff replaced by the mask of TRUST-7; the rest as it is. An empty record stays empty.
std::string masked_code_record(const std::string& record, const std::vector<std::string>& secrets);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

#endif  // SORTIE_XM_CODE_RECORD_HPP
