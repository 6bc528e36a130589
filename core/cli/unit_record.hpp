// File: core/cli/unit_record.hpp
//
// `sortie experiments show ID --unit N`: what one work unit ran (docs/experiments.md XF-32), its
// hyperparameters, and per job the executable's digest and the app as submitted (entrypoint,
// resolved args, env with secrets masked, resources), as `sortie describe` shows an app.
#ifndef SORTIE_CLI_UNIT_RECORD_HPP
#define SORTIE_CLI_UNIT_RECORD_HPP

#include <sortie/session/session.hpp>
#include <sortie/xm.hpp>

namespace sortie::cli {

// Prints the unit (JSON `sortie.cli.work_unit/1` when `json`); an experiment without unit
// `unit_id` is Error(NOT_FOUND) naming the units it has.
int show_work_unit(session::Session& ctx, xm::Experiment& experiment, int unit_id, bool json);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_UNIT_RECORD_HPP
