// Interrupted launches (docs/experiments.md): a process launching work units marks the
// experiment with its pid, start time and the number of units it means to add before the first,
// and clears the mark after the last. A mark whose process is gone means the launch was killed
// part-way: the experiment is PARTIAL, whatever its launched units do.
#ifndef SORTIE_SESSION_LAUNCH_MARKER_HPP
#define SORTIE_SESSION_LAUNCH_MARKER_HPP

#include <cstdint>
#include <optional>
#include <sortie/store/store.hpp>
#include <string>
#include <vector>

namespace sortie::session {

class Session;

// The mark of a launch by this process of `units_expected` work units (nullopt: not known).
store::LaunchMarker this_process_launch(std::optional<int64_t> units_expected);

// True when `experiment` carries a launch mark whose process no longer runs.
bool launcher_gone(const store::ExperimentRecord& experiment);

// "launched K of N work units" (N left out when not known); K counts the units with a job.
std::string launched_count(const std::vector<store::WorkUnitRecord>& units,
                           std::optional<int64_t> units_expected);

// Why the experiment's launch stopped short, or empty when it did not (or is still under way):
// the recorded reason, else for a mark whose process is gone "launched K of N work units; the
// launch was interrupted (its process PID is gone)". Reads only, so a reader can say it.
std::string partial_reason(const store::ExperimentRecord& experiment,
                           const std::vector<store::WorkUnitRecord>& units);

// Records the reason of every experiment whose launcher is gone and clears its mark; returns
// one sentence per experiment settled. Errors leave the mark for the next command.
std::vector<std::string> reconcile_launches(Session& session);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_LAUNCH_MARKER_HPP
