#include "unit_record.hpp"

#include <cstdio>
#include <optional>
#include <set>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/secret_env.hpp>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/work_unit_args.hpp>
#include <string>
#include <vector>

#include "commands.hpp"
#include "printable.hpp"
#include "status_format.hpp"

namespace sortie::cli {
namespace {

const xm::WorkUnit& unit_of(const std::vector<xm::WorkUnit>& units, int unit_id,
                            int64_t experiment_id) {
  for (const xm::WorkUnit& unit : units) {
    if (unit.id == unit_id) return unit;
  }
  throw Error::not_found("experiment " + std::to_string(experiment_id) + " has no work unit " +
                         std::to_string(unit_id) + " (it has " + std::to_string(units.size()) +
                         "; see `sortie experiments show " + std::to_string(experiment_id) + "`)");
}

// One job of the unit with its app as the store recorded it.
struct RecordedJob {
  const xm::JobHandle* job;
  std::optional<AppDef> app;  // none for an app submitted outside this store
  std::string app_json;       // secrets masked
  std::vector<std::string> secrets;
};

std::vector<RecordedJob> recorded_jobs(session::Session& ctx, const xm::WorkUnit& unit) {
  runner::Runner runner = runner::SessionBinding::over(ctx);
  std::vector<RecordedJob> jobs;
  for (const xm::JobHandle& job : unit.jobs) {
    RecordedJob& recorded = jobs.emplace_back(RecordedJob{&job, std::nullopt, "", {}});
    const auto description = runner.describe(job.app);
    if (!description || description->app_json.empty()) continue;
    recorded.app = model::appdef_from_json(description->app_json, job.app);
    recorded.secrets = model::secret_env_values(*recorded.app);
    recorded.app_json = model::mask_secrets(description->app_json, recorded.secrets);
  }
  return jobs;
}

void print_json(int64_t experiment_id, const xm::WorkUnit& unit,
                const std::vector<RecordedJob>& jobs) {
  session::JsonText out;
  out.begin_object().key("schema").string("sortie.cli.work_unit/1");
  out.key("experiment").number(experiment_id).key("id").number(int64_t{unit.id});
  out.key("state").string(xm::to_string(unit.state)).key("args").begin_object();
  for (const auto& [name, value] : session::hyperparameters_of(unit.args_json)) {
    out.key(name).string(value);
  }
  out.end_object().key("jobs").begin_array();
  for (const RecordedJob& recorded : jobs) {
    const xm::JobHandle& job = *recorded.job;
    out.begin_object().key("name").string(job.name).key("app").string(job.app);
    out.key("role").string(job.role).key("state").string(xm::to_string(job.state));
    out.key("executable_digest").string(job.executable_digest).key("definition");
    out.raw_or_null(recorded.app_json).end_object();
  }
  std::printf("%s\n", out.end_array().end_object().str().c_str());
}

void print_human(int64_t experiment_id, const xm::WorkUnit& unit,
                 const std::vector<RecordedJob>& jobs) {
  const std::string settings = session::hyperparameters_text(unit.args_json);
  std::printf("work unit %d of experiment %lld: %s%s%s\n", unit.id,
              static_cast<long long>(experiment_id), xm::to_string(unit.state),
              settings.empty() ? "" : "  ", printable(settings).c_str());
  std::set<std::string> apps_shown;  // a job group's jobs are one app
  for (const RecordedJob& recorded : jobs) {
    const xm::JobHandle& job = *recorded.job;
    std::printf("  job %s (role %s of %s): %s, executable %s\n", printable(job.name).c_str(),
                printable(job.role).c_str(), printable(job.app).c_str(), xm::to_string(job.state),
                job.executable_digest.empty() ? "(no digest)" : job.executable_digest.c_str());
    if (!recorded.app || !apps_shown.insert(job.app).second) continue;
    // format_app escapes control characters, so the secrets are looked for as they are shown.
    std::vector<std::string> shown_secrets;
    for (const std::string& secret : recorded.secrets) shown_secrets.push_back(printable(secret));
    std::fputs(model::mask_secrets(format_app(*recorded.app), shown_secrets).c_str(), stdout);
  }
}

}  // namespace

int show_work_unit(session::Session& ctx, xm::Experiment& experiment, int unit_id, bool json) {
  const std::vector<xm::WorkUnit> units = experiment.work_units();
  const xm::WorkUnit& unit = unit_of(units, unit_id, experiment.id());
  const std::vector<RecordedJob> jobs = recorded_jobs(ctx, unit);
  if (json) {
    print_json(experiment.id(), unit, jobs);
  } else {
    print_human(experiment.id(), unit, jobs);
  }
  return kExitOk;
}

}  // namespace sortie::cli
