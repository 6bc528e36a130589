// File: core/cli/code_summary.hpp
//
// What an experiment's launch ran (a "sortie.code_record/1" text, docs/experiments.md XF-31) in
// the two lines `sortie experiments show` prints: the command, and the code's version.
#ifndef SORTIE_CLI_CODE_SUMMARY_HPP
#define SORTIE_CLI_CODE_SUMMARY_HPP

#include <string>

namespace sortie::cli {

// "launched by: python3 launcher.py --lr=0.1\ncode: git 1a2b3c4d5e6f on main, 2 files changed, 1
// untracked (/src/project)\n"; "" for an empty record (an experiment recorded before sortie kept
// one).
std::string code_summary(const std::string& code_json);

// `word` as a shell reads it back: quoted when it holds anything but letters, digits and
// `_-.,:/=@+%`.
std::string shell_word(const std::string& word);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_CODE_SUMMARY_HPP
