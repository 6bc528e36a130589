// File: core/ui/work_unit_args.hpp
//
// A work unit's hyperparameters, for the sweep table, out of the overrides the store recorded
// for it (per job: the flags and env vars it was added with, docs/experiments.md).
#ifndef SORTIE_UI_WORK_UNIT_ARGS_HPP
#define SORTIE_UI_WORK_UNIT_ARGS_HPP

#include <string>
#include <utility>
#include <vector>

namespace sortie::ui {

// `--lr=0.1` is (lr, 0.1), an env var NAME=V is ($NAME, V), any other word is (args, word...)
// joined by spaces. A name whose value differs between the jobs of one unit is given per job as
// JOB.NAME. In the order first seen; malformed JSON gives none.
std::vector<std::pair<std::string, std::string>> hyperparameters_of(const std::string& args_json);

}  // namespace sortie::ui

#endif  // SORTIE_UI_WORK_UNIT_ARGS_HPP
