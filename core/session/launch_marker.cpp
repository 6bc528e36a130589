#include <unistd.h>

#include <sortie/model/error.hpp>
#include <sortie/session/launch_marker.hpp>
#include <sortie/session/process_liveness.hpp>
#include <sortie/session/session.hpp>

namespace sortie::session {

store::LaunchMarker this_process_launch(std::optional<int64_t> units_expected) {
  const pid_t pid = ::getpid();
  return store::LaunchMarker{pid, process_started_at(pid).value_or(now_ns()), units_expected};
}

bool launcher_gone(const store::ExperimentRecord& experiment) {
  return experiment.launch && !same_process_running(static_cast<pid_t>(experiment.launch->pid),
                                                    experiment.launch->process_started_at);
}

std::string launched_count(const std::vector<store::WorkUnitRecord>& units,
                           std::optional<int64_t> units_expected) {
  int64_t launched = 0;
  for (const store::WorkUnitRecord& unit : units) launched += unit.jobs.empty() ? 0 : 1;
  std::string text = "launched " + std::to_string(launched);
  if (units_expected) text += " of " + std::to_string(*units_expected);
  return text + " work units";
}

std::string partial_reason(const store::ExperimentRecord& experiment,
                           const std::vector<store::WorkUnitRecord>& units) {
  if (!experiment.partial_reason.empty()) return experiment.partial_reason;
  if (!launcher_gone(experiment)) return "";
  return launched_count(units, experiment.launch->units_expected) +
         "; the launch was interrupted (its process " + std::to_string(experiment.launch->pid) +
         " is gone)";
}

std::vector<std::string> reconcile_launches(Session& session) {
  store::AppStore& store = session.store();
  std::vector<std::string> settled;
  for (const store::ExperimentRecord& experiment : store.launching_experiments()) {
    if (!launcher_gone(experiment)) continue;
    try {
      const std::string reason = partial_reason(experiment, store.work_units(experiment.id));
      // The launcher may have finished and exited after the list: only a mark still there is
      // settled (the store checks it in the write).
      if (store.settle_launch(experiment, reason)) {
        settled.push_back("experiment " + std::to_string(experiment.id) + ": PARTIAL, " + reason);
      }
    } catch (const Error&) {
      // Left marked: readers still say PARTIAL, and the next command tries again.
    }
  }
  return settled;
}

}  // namespace sortie::session
