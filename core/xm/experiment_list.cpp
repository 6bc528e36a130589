// list_experiments: the store's experiments with the states of their work units. A job's state is
// the store's record, refreshed from its scheduler (and recorded) only while it is not terminal.
#include <algorithm>
#include <map>
#include <set>
#include <sortie/model/error.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/launch_marker.hpp>
#include <sortie/xm.hpp>
#include <sortie/xm/session_binding.hpp>

namespace sortie::xm {
namespace {

struct JobState {
  std::string text;                 // "RUNNING", "SUCCEEDED (unverified)", ...
  std::optional<int64_t> ended_at;  // when it reached a terminal state (ns); none while active
};

JobState job_state(session::Session& ctx, const std::string& handle) {
  const auto app = ctx.records().get(handle);
  if (!app) return {"UNKNOWN", std::nullopt};
  if (model::is_terminal(app->state)) return {model::to_string(app->state), app->updated_at};
  try {
    const session::AppLookup lookup = session::lookup_app(ctx, handle);
    if (lookup.status && lookup.not_refreshed.empty()) {
      const bool ended = model::is_terminal(lookup.status->state);
      return {model::to_string(lookup.status->state),
              ended ? std::optional<int64_t>(ctx.records().get(handle)->updated_at) : std::nullopt};
    }
  } catch (const Error&) {
    // Said as unverified below; `sortie experiments show` reports the error itself.
  }
  return {std::string(model::to_string(app->state)) + " (unverified)", std::nullopt};
}

// `known` holds the states found so far by handle: a job group's jobs share one app.
JobState unit_state(session::Session& ctx, const store::WorkUnitRecord& unit,
                    std::map<std::string, JobState>& known) {
  std::set<std::string> states;
  std::optional<int64_t> ended_at = int64_t{0};
  for (const store::ExperimentJobRecord& job : unit.jobs) {
    auto found = known.find(job.handle);
    if (found == known.end()) found = known.emplace(job.handle, job_state(ctx, job.handle)).first;
    states.insert(found->second.text);
    ended_at = ended_at && found->second.ended_at
                   ? std::optional<int64_t>(std::max(*ended_at, *found->second.ended_at))
                   : std::nullopt;
  }
  if (states.empty()) return {"NOT LAUNCHED", int64_t{0}};
  std::string text;
  for (const std::string& state : states) text += (text.empty() ? "" : "/") + state;
  return {text, ended_at};
}

}  // namespace

std::vector<ExperimentSummary> SessionBinding::list(session::Session& session, int limit,
                                                    const std::string& tag) {
  std::vector<ExperimentSummary> summaries;
  std::map<std::string, JobState> known;
  for (const store::ExperimentRecord& experiment : session.records().experiments(limit, tag)) {
    const auto units = session.records().work_units(experiment.id);
    std::map<std::string, int64_t> counts;
    std::optional<int64_t> ended_at = experiment.created_at;
    for (const store::WorkUnitRecord& unit : units) {
      const JobState state = unit_state(session, unit, known);
      ++counts[state.text];
      ended_at = ended_at && state.ended_at
                     ? std::optional<int64_t>(std::max(*ended_at, *state.ended_at))
                     : std::nullopt;
    }
    ExperimentSummary summary{experiment.id,
                              experiment.title,
                              experiment.launch_dir,
                              experiment.created_at,
                              static_cast<int64_t>(units.size()),
                              {},
                              session::partial_reason(experiment, units),
                              {},
                              units.empty() ? std::nullopt : ended_at,
                              experiment.tags};
    for (const auto& [state, count] : counts) {
      summary.states.push_back(state);
      summary.state_counts.push_back(count);
    }
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

std::vector<ExperimentSummary> list_experiments(int limit, const Options& options) {
  return list_experiments(limit, "", options);
}

std::vector<ExperimentSummary> list_experiments(int limit, const std::string& tag,
                                                const Options& options) {
  session::Session session(detail::session_options(options));
  return SessionBinding::list(session, limit, tag);
}

}  // namespace sortie::xm
