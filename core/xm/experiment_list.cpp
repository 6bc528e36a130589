// list_experiments: the store's experiments with the states of their work units. A job's state is
// the store's record, refreshed from its scheduler (and recorded) only while it is not terminal.
#include <map>
#include <set>
#include <sortie/core/error.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/launch_marker.hpp>
#include <sortie/xm.hpp>
#include <sortie/xm/session_binding.hpp>

namespace sortie::xm {
namespace {

std::string job_state(session::Session& ctx, const std::string& handle) {
  const auto app = ctx.records().get(handle);
  if (!app) return "UNKNOWN";
  if (core::is_terminal(app->state)) return core::to_string(app->state);
  try {
    const session::AppLookup lookup = session::lookup_app(ctx, handle);
    if (lookup.status && lookup.not_refreshed.empty()) return core::to_string(lookup.status->state);
  } catch (const core::Error&) {
    // Said as unverified below; `sortie experiments show` reports the error itself.
  }
  return std::string(core::to_string(app->state)) + " (unverified)";
}

// `known` holds the states found so far by handle: a job group's jobs share one app.
std::string unit_state(session::Session& ctx, const core::WorkUnitRecord& unit,
                       std::map<std::string, std::string>& known) {
  std::set<std::string> states;
  for (const core::ExperimentJobRecord& job : unit.jobs) {
    auto found = known.find(job.handle);
    if (found == known.end()) found = known.emplace(job.handle, job_state(ctx, job.handle)).first;
    states.insert(found->second);
  }
  if (states.empty()) return "NOT LAUNCHED";
  std::string text;
  for (const std::string& state : states) text += (text.empty() ? "" : "/") + state;
  return text;
}

}  // namespace

std::vector<ExperimentSummary> SessionBinding::list(session::Session& session, int limit) {
  std::vector<ExperimentSummary> summaries;
  std::map<std::string, std::string> known;
  for (const core::ExperimentRecord& experiment : session.records().experiments(limit)) {
    const auto units = session.records().work_units(experiment.id);
    std::set<std::string> states;
    for (const core::WorkUnitRecord& unit : units) states.insert(unit_state(session, unit, known));
    summaries.push_back({experiment.id, experiment.title, experiment.launch_dir,
                         experiment.created_at, static_cast<int64_t>(units.size()),
                         std::vector<std::string>(states.begin(), states.end()),
                         session::partial_reason(experiment, units)});
  }
  return summaries;
}

std::vector<ExperimentSummary> list_experiments(int limit, const Options& options) {
  session::Session session(xm_impl::session_options(options));
  return SessionBinding::list(session, limit);
}

}  // namespace sortie::xm
