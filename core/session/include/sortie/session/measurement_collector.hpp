// File: core/session/include/sortie/session/measurement_collector.hpp
//
// Reads what an app's jobs measured from its logs into the store (docs/experiments.md,
// "Measurements"), through its scheduler's log interface, so it works for every scheduler and
// costs the job nothing: the lines of roles that set SORTIE_METRICS_PATTERN, and the metrics
// file of schedulers that serve it as the log stream "metrics". Each read starts where the last
// one (of any process) stopped; an ended app is read to its end once, then never again.
#ifndef SORTIE_SESSION_MEASUREMENT_COLLECTOR_HPP
#define SORTIE_SESSION_MEASUREMENT_COLLECTOR_HPP

#include <sortie/session/app_lookup.hpp>
#include <sortie/session/session.hpp>
#include <string>

namespace sortie::session {

// The role environment variables that turn log line measurements on, and the pattern the value
// `default` stands for: lines with a word `step` followed by `=` or `:`.
inline constexpr const char* kMetricsPatternVariable = "SORTIE_METRICS_PATTERN";
inline constexpr const char* kMetricsStepKeyVariable = "SORTIE_METRICS_STEP_KEY";
inline constexpr const char* kDefaultMetricsPattern = "(^|[^[:alnum:]_])step[=:]";

// Reads the app's new measurements and records them; nothing for an app the store does not
// record, one already read to its end, or one whose scheduler cannot be asked. A pattern that is
// not valid is Error(INVALID_ARGUMENT) naming the role and variable; a scheduler that refuses the
// stream "metrics" serves no metrics file, which is not an error.
void collect_measurements(Session& session, const AppLookup& app);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_MEASUREMENT_COLLECTOR_HPP
