// File: core/session/include/sortie/session/measurement_collector.hpp
//
// Reads what an app's jobs measured from its logs into the store (docs/experiments.md,
// "Measurements"), through its scheduler's log interface, so it works for every scheduler and
// costs the job nothing: the lines of roles that set SORTIE_METRICS_PATTERN, and the metrics
// file of schedulers that serve it as the log stream "metrics". Each read starts where the last
// one (of any process) stopped; an ended app is read to its end once, then never again.
#ifndef SORTIE_SESSION_MEASUREMENT_COLLECTOR_HPP
#define SORTIE_SESSION_MEASUREMENT_COLLECTOR_HPP

#include <functional>
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

// Follows the app's logs until it ends, reading each line once, and records what they hold about
// twice a second, calling `on_recorded` after each record (it returns false to stop). True once
// everything was read (or `on_recorded` stopped it); false, having recorded part of it or
// nothing, when another process recorded the same lines meanwhile or the app has nothing to
// follow: the caller then calls collect_measurements from time to time instead.
bool follow_measurements(Session& session, const AppLookup& app,
                         const std::function<bool()>& on_recorded);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_MEASUREMENT_COLLECTOR_HPP
