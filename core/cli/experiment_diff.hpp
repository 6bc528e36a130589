// File: core/cli/experiment_diff.hpp
//
// `sortie experiments diff ID1 ID2`: what changed between two experiments' code and settings
// (docs/experiments.md XF-33), out of what each recorded at launch.
#ifndef SORTIE_CLI_EXPERIMENT_DIFF_HPP
#define SORTIE_CLI_EXPERIMENT_DIFF_HPP

#include <sortie/xm.hpp>
#include <string>

namespace sortie::cli {

// The differences, one per line ("commit: 1a2b3c4d5e6f -> 9f8e7d6c5b4a", a line diff of the
// launch scripts and of the uncommitted changes, each work unit's changed settings); empty when
// the two ran the same code with the same settings.
std::string experiment_diff(xm::Experiment& before, xm::Experiment& after);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_EXPERIMENT_DIFF_HPP
