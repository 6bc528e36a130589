#include "api_views.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <map>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/secret_env.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/launch_marker.hpp>
#include <sortie/session/unit_measurements.hpp>
#include <sortie/session/work_unit_args.hpp>
#include <sortie/xm/session_binding.hpp>
#include <vector>

namespace sortie::ui {
namespace {

using session::JsonText;

// A work unit whose jobs are in different states shows the one that needs attention first.
int attention_rank(const std::string& state) {
  static const std::vector<std::string> kOrder = {"FAILED",      "CANCELLED", "UNKNOWN",
                                                  "RUNNING",     "PENDING",   "SUBMITTED",
                                                  "UNSUBMITTED", "SUCCEEDED"};
  const auto found = std::find(kOrder.begin(), kOrder.end(), state);
  return static_cast<int>(found - kOrder.begin());
}

std::string recorded_state(const std::optional<store::AppRecord>& record) {
  return record ? model::to_string(record->state) : "UNKNOWN";
}

std::string recorded_state(const store::AppStore& store, const std::string& handle) {
  return recorded_state(store.get(handle));
}

std::string unit_state(const store::AppStore& store, const store::WorkUnitRecord& unit) {
  std::string state = "UNSUBMITTED";
  for (const store::ExperimentJobRecord& job : unit.jobs) {
    const std::string job_state = recorded_state(store, job.handle);
    if (attention_rank(job_state) < attention_rank(state) || state == "UNSUBMITTED") {
      state = job_state;
    }
  }
  return state;
}

void optional_number(JsonText& out, const char* key, const std::optional<int64_t>& value) {
  out.key(key);
  value ? out.number(*value) : out.null();
}

void replica_json(JsonText& out, const runner::ReplicaStatus& replica) {
  out.begin_object().key("id").number(int64_t{replica.id});
  out.key("state").string(runner::to_string(replica.state));
  optional_number(out, "pid", replica.pid);
  out.key("exit_code");
  replica.exit_code ? out.number(*replica.exit_code) : out.null();
  out.key("hostname").string(replica.hostname);
  out.key("restarts").number(replica.restarts);
  optional_number(out, "started_at", replica.started_at);
  optional_number(out, "finished_at", replica.finished_at);
  out.key("message").string(replica.msg);
  out.end_object();
}

// The experiment and work unit whose job the app runs: xm gives each job's env their ids
// (SORTIE_EXPERIMENT_ID, SORTIE_WORK_UNIT_ID), checked against the store's record of the unit;
// nothing for an app launched outside an experiment.
void work_unit_json(JsonText& out, const store::AppStore& store, const std::string& handle,
                    const std::string& app_json) {
  out.key("experiment");
  if (!app_json.empty()) {
    for (const Role& role : model::appdef_from_json(app_json, "the store").roles) {
      const std::string* experiment = find_value(role.env, "SORTIE_EXPERIMENT_ID");
      const std::string* unit = find_value(role.env, "SORTIE_WORK_UNIT_ID");
      if (experiment == nullptr || unit == nullptr) continue;
      for (const store::WorkUnitRecord& record :
           store.work_units(std::atoll(experiment->c_str()))) {
        if (std::to_string(record.work_unit_id) != *unit) continue;
        for (const auto* jobs : {&record.jobs, &record.earlier_jobs}) {
          for (const store::ExperimentJobRecord& job : *jobs) {
            if (job.handle != handle) continue;
            out.begin_object().key("id").number(record.experiment_id);
            out.key("work_unit").number(int64_t{record.work_unit_id});
            out.key("job").string(job.job_name).key("attempt").number(int64_t{job.attempt});
            out.end_object();
            return;
          }
        }
      }
    }
  }
  out.null();
}

constexpr size_t kSparklinePoints = 32;

// Each measured key of the unit (unit_measurements: its first job's series reporting it): its
// last, least and greatest values, count, and a sparkline of at most kSparklinePoints values.
void unit_measurements_json(JsonText& out, WorkerContext& context,
                            const store::WorkUnitRecord& unit) {
  std::vector<std::string> handles;
  for (const store::ExperimentJobRecord& job : unit.jobs) handles.push_back(job.handle);
  const session::UnitMeasurements measured = session::unit_measurements(context.session(), handles);
  out.key("measurements").begin_object();
  for (const auto& [key, measurement] : measured.by_key) {
    const store::MeasurementSeries& series = measurement.series;
    out.key(key).begin_object().key("handle").string(measurement.handle);
    out.key("role").string(series.role).key("replica").number(int64_t{series.replica_id});
    out.key("rank").number(int64_t{series.rank});
    out.key("count").number(series.count).key("step").number(series.last.step);
    out.key("last").number(series.last.value).key("min").number(series.min.value);
    out.key("max").number(series.max.value).key("spark").begin_array();
    for (const store::MeasurementSeries& curve :
         context.session().records().measurements(measurement.handle, key, true)) {
      if (curve.role != series.role || curve.replica_id != series.replica_id ||
          curve.rank != series.rank) {
        continue;
      }
      const size_t size = curve.curve.size();
      const size_t shown = std::min(size, kSparklinePoints);
      for (size_t i = 0; i < shown; ++i) {
        out.number(curve.curve[shown < 2 ? 0 : i * (size - 1) / (shown - 1)].value);
      }
    }
    out.end_array().end_object();
  }
  out.end_object();
}

}  // namespace

std::vector<std::string> secrets_of(const std::string& app_json) {
  if (app_json.empty()) return {};
  return model::secret_env_values(model::appdef_from_json(app_json, "the store"));
}

std::vector<std::string> recorded_secrets(const store::AppStore& store, const std::string& handle) {
  const auto record = store.get(handle);
  return record ? secrets_of(record->appdef_json) : std::vector<std::string>{};
}

std::string experiments_json(WorkerContext& context) {
  const store::AppStore& store = context.session().records();
  JsonText out;
  out.begin_object().key("schema").string("sortie.ui.experiments/1").key("experiments");
  out.begin_array();
  for (const store::ExperimentRecord& experiment : store.experiments(0)) {
    const auto units = store.work_units(experiment.id);
    std::map<std::string, int64_t> states;
    for (const store::WorkUnitRecord& unit : units) ++states[unit_state(store, unit)];
    out.begin_object().key("id").number(experiment.id).key("title").string(experiment.title);
    out.key("created_at").number(experiment.created_at);
    out.key("partial_reason").string(session::partial_reason(experiment, units));
    out.key("work_units").number(static_cast<int64_t>(units.size())).key("states").begin_object();
    for (const auto& [state, count] : states) out.key(state).number(count);
    out.end_object().key("tags").begin_array();
    for (const std::string& tag : experiment.tags) out.string(tag);
    out.end_array().end_object();
  }
  out.end_array().end_object();
  return out.str();
}

std::optional<std::string> experiment_json(WorkerContext& context, int64_t id, const Page& page) {
  const store::AppStore& store = context.session().records();
  const auto experiment = store.experiment(id);
  if (!experiment) return std::nullopt;
  JsonText out;
  out.begin_object().key("schema").string("sortie.ui.experiment/1");
  out.key("id").number(experiment->id).key("title").string(experiment->title);
  out.key("launch_dir").string(experiment->launch_dir);
  const std::vector<store::WorkUnitRecord> units = store.work_units(id);
  out.key("created_at").number(experiment->created_at);
  out.key("partial_reason").string(session::partial_reason(*experiment, units));
  out.key("notes").string(experiment->notes).key("tags").begin_array();
  for (const std::string& tag : experiment->tags) out.string(tag);
  // The code record's masking reads every app of the experiment: asked once, on the first page.
  out.end_array().key("code").raw_or_null(
      page.after.empty() ? xm::SessionBinding::get(context.session(), id).code_record() : "");
  out.key("total").number(static_cast<int64_t>(units.size()));
  // The page: the units numbered after `page.after`, in order; only their apps are read.
  const int64_t after = page.after.empty() ? 0 : std::stoll(page.after);
  auto first = std::find_if(units.begin(), units.end(), [after](const store::WorkUnitRecord& unit) {
    return unit.work_unit_id > after;
  });
  const auto end = units.end() - first > page.limit ? first + page.limit : units.end();
  // An override may set a secret env var: the secrets of every app of the page are masked.
  std::vector<std::string> secrets;
  out.key("work_units").begin_array();
  for (auto unit = first; unit != end; ++unit) {
    out.begin_object().key("id").number(int64_t{unit->work_unit_id});
    out.key("args").begin_object();
    for (const auto& [name, value] : session::hyperparameters_of(unit->args_json)) {
      out.key(name).string(value);
    }
    out.end_object().key("overrides").raw(unit->args_json.empty() ? "{}" : unit->args_json);
    out.key("state").string(unit_state(store, *unit));
    unit_measurements_json(out, context, *unit);
    // Its first attempt until it launched (Experiment::rerun adds the others).
    out.key("attempt").number(int64_t{unit->jobs.empty() ? 1 : unit->jobs.front().attempt});
    out.key("jobs").begin_array();
    for (const store::ExperimentJobRecord& job : unit->jobs) {
      const auto record = store.get(job.handle);
      if (record) {
        const auto app_secrets = secrets_of(record->appdef_json);
        secrets.insert(secrets.end(), app_secrets.begin(), app_secrets.end());
      }
      out.begin_object().key("name").string(job.job_name).key("handle").string(job.handle);
      out.key("role").string(job.role).key("state").string(recorded_state(record));
      out.end_object();
    }
    out.end_array().end_object();
  }
  out.end_array().key("next");
  end == units.end() ? out.null() : out.string(std::to_string(std::prev(end)->work_unit_id));
  out.end_object();
  // Longest first, as secret_env_values orders one app's: a secret within another is masked whole.
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return model::mask_secrets(out.str(), secrets);
}

std::string apps_json(WorkerContext& context, const Page& page) {
  const store::AppStore& store = context.session().records();
  store::ListFilter filter;
  JsonText out;
  out.begin_object().key("schema").string("sortie.ui.apps/1");
  out.key("total").number(store.count(filter));
  if (!page.after.empty()) filter.after_handle = page.after;
  filter.limit = static_cast<int>(page.limit) + 1;  // one more tells whether a next page exists
  std::vector<store::AppRecord> apps = store.list(filter);
  const bool more = apps.size() > static_cast<size_t>(page.limit);
  if (more) apps.pop_back();
  out.key("apps").begin_array();
  for (const store::AppRecord& app : apps) {
    out.begin_object().key("handle").string(app.handle);
    out.key("name").string(model::mask_secrets(app.name, secrets_of(app.appdef_json)));
    out.key("state").string(model::to_string(app.state));
    out.key("submitted_at").number(app.submitted_at).end_object();
  }
  out.end_array().key("next");
  more ? out.string(apps.back().handle) : out.null();
  return out.end_object().str();
}

std::string app_json(WorkerContext& context, const std::string& handle) {
  const auto description = context.runner().describe(handle);
  if (!description) throw Error::not_found("app " + handle + " is unknown");
  JsonText out;
  out.begin_object().key("schema").string("sortie.ui.app/1");
  out.key("handle").string(description->handle);
  out.key("app").raw_or_null(description->app_json);
  out.key("submitted_at").number(description->submitted_at);
  work_unit_json(out, context.session().records(), description->handle, description->app_json);
  if (const auto& status = description->status) {
    out.key("state").string(runner::to_string(status->state));
    out.key("message").string(status->msg);
    out.key("restarts").number(status->num_restarts);
    out.key("from_store_only").boolean(status->from_store_only);
    out.key("not_refreshed").string(status->not_refreshed);
    out.key("roles").begin_array();
    for (const runner::RoleStatus& role : status->roles) {
      out.begin_object().key("role").string(role.role).key("replicas").begin_array();
      for (const runner::ReplicaStatus& replica : role.replicas) replica_json(out, replica);
      out.end_array().end_object();
    }
    out.end_array();
  } else {
    out.key("state").string("UNKNOWN").key("roles").begin_array().end_array();
  }
  out.key("events").begin_array();
  for (const store::AppEvent& event : context.session().records().events(description->handle)) {
    out.raw(event_json(event));
  }
  out.end_array().end_object();
  return model::mask_secrets(out.str(), secrets_of(description->app_json));
}

std::string metrics_json(WorkerContext& context, const std::string& handle, const std::string& key,
                         const CurveWindow& window, const std::map<std::string, int64_t>& after,
                         std::map<std::string, int64_t>* last_index) {
  JsonText out;
  out.begin_object().key("schema").string("sortie.ui.metrics/1").key("handle").string(handle);
  out.key("series").begin_array();
  for (const runner::MetricSeries& series : context.runner().metrics(handle, key)) {
    const std::string name = series.role + "/" + std::to_string(series.replica) + "/" +
                             std::to_string(series.rank) + "/" + series.key;
    const auto sent = after.find(name);
    const int64_t first = sent == after.end() ? -1 : sent->second;
    if (last_index != nullptr) (*last_index)[name] = series.last.index;
    if (series.last.index <= first && sent != after.end()) continue;
    out.begin_object().key("role").string(series.role);
    out.key("replica").number(int64_t{series.replica}).key("rank").number(int64_t{series.rank});
    out.key("key").string(series.key);
    out.key("count").number(series.count).key("points").begin_array();
    std::vector<runner::MetricPoint> points;
    for (const runner::MetricPoint& point : series.points) {
      if (point.index > first && point.step >= window.from && point.step <= window.to) {
        points.push_back(point);
      }
    }
    if (window.width > 0) points = downsampled(points, window.width);
    for (const runner::MetricPoint& point : points) {
      out.begin_array().number(point.index).number(point.step).number(point.value);
      out.number(point.at_ns / 1000000).end_array();
    }
    out.end_array().end_object();
  }
  return out.end_array().end_object().str();
}

std::string event_json(const store::AppEvent& event) {
  JsonText out;
  out.begin_object().key("id").number(event.id).key("handle").string(event.handle);
  out.key("at").number(event.at).key("kind").string(event.kind).key("detail").string(event.detail);
  return out.end_object().str();
}

}  // namespace sortie::ui
