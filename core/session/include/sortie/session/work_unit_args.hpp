// File: core/session/include/sortie/session/work_unit_args.hpp
//
// A work unit's hyperparameters, for `sortie experiments show` and the dashboard's sweep table,
// out of the overrides the store recorded for it (per job: the flags and env vars it was added
// with, docs/experiments.md).
#ifndef SORTIE_SESSION_WORK_UNIT_ARGS_HPP
#define SORTIE_SESSION_WORK_UNIT_ARGS_HPP

#include <string>
#include <utility>
#include <vector>

namespace sortie::session {

// `--lr=0.1` is (lr, 0.1), an env var NAME=V is ($NAME, V) with a secret's value masked
// (TRUST-7), any other word is (args, word...) joined by spaces. A name whose value differs between
// the jobs of one unit is given per job as JOB.NAME. In the order first seen; malformed JSON gives
// none.
std::vector<std::pair<std::string, std::string>> hyperparameters_of(const std::string& args_json);

// The same as one line for people: "lr=0.1 batch_size=32 $SEED=1" (other words as they are).
std::string hyperparameters_text(const std::string& args_json);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_WORK_UNIT_ARGS_HPP
