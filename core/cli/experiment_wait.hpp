// File: core/cli/experiment_wait.hpp
//
// `launch --wait` and `experiments rerun --wait`: their options, and waiting, bounded, for an
// experiment's work units with the exit status that says how they ended (docs/exit-status.md).
#ifndef SORTIE_CLI_EXPERIMENT_WAIT_HPP
#define SORTIE_CLI_EXPERIMENT_WAIT_HPP

#include <boost/program_options.hpp>
#include <sortie/xm.hpp>

namespace sortie::cli {

// The command's --wait and --timeout SECONDS (default kDefaultWaitForAppsS, a day).
struct ExperimentWait {
  bool wait = false;
  double timeout_s;
  ExperimentWait();
  void add_options(boost::program_options::options_description& desc);
  // Refuses --timeout without --wait and a negative one; with --wait, installs the SIGINT/SIGTERM
  // handlers, so that an interrupted wait cancels what was launched (as `run --wait` does).
  void check(const boost::program_options::variables_map& vm) const;
};

// Waits at most `timeout_s` for every work unit to end and prints the experiment's state: 0 when
// it SUCCEEDED, 1 when not, 3 when units still run after the timeout (they keep running), 130
// when SIGINT/SIGTERM arrived (session::install_interrupt_handlers), having cancelled what runs.
// `command` names the command in its messages ("sortie launch").
int wait_for_experiment(xm::Experiment& experiment, double timeout_s, const char* command);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_EXPERIMENT_WAIT_HPP
