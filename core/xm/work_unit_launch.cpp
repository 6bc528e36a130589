#include "work_unit_launch.hpp"

#include <rapidjson/document.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <set>
#include <sortie/app_status.hpp>
#include <sortie/macros.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/runopts.hpp>
#include <sortie/session/launcher.hpp>
#include <sortie/xm/jobs.hpp>
#include <sortie/xm/resources.hpp>

namespace sortie::xm::detail {
namespace {

// Where a job runs: the scheduler of its executor for its packaged kind, with run options.
struct Placement {
  std::string scheduler;
  std::map<std::string, model::RawOpt> options;
  // The executor entry's `workdir` run options, when its scheduler can run a process from the
  // directory given as the role's image.
  std::optional<std::map<std::string, model::RawOpt>> workdir_options;
  bool operator==(const Placement& other) const {
    if (scheduler != other.scheduler || options.size() != other.options.size()) return false;
    for (const auto& [name, option] : options) {
      const auto it = other.options.find(name);
      if (it == other.options.end() || it->second.value != option.value) return false;
    }
    return true;
  }
};

// The run options each scheduler declares, asked once per launch.
class DeclaredOptions {
 public:
  DeclaredOptions(session::Session& ctx, std::string session)
      : ctx_(ctx), session_(std::move(session)) {}
  bool has(const std::string& scheduler, const std::string& option) {
    auto it = declared_.find(scheduler);
    if (it == declared_.end()) {
      const auto client = ctx_.scheduler(scheduler, session_);
      std::set<std::string> names;
      for (const model::RunOpt& declared : client->declared_run_options()) {
        names.insert(declared.name);
      }
      it = declared_.emplace(scheduler, std::move(names)).first;
    }
    return it->second.count(option) > 0;
  }

 private:
  session::Session& ctx_;
  std::string session_;
  std::map<std::string, std::set<std::string>> declared_;
};

// Requirements a Resource cannot carry (an accelerator's type, a TPU topology, a location) go
// through the scheduler's run options of those names when it declares them; otherwise they are
// refused, except a GPU type, whose count already is in the Resource.
void carry_requirements(DeclaredOptions& declared, const std::string& job_name,
                        const JobRequirements& requirements, Placement& placement) {
  const std::string where = "job '" + job_name + "': requirements";
  const std::string& scheduler = placement.scheduler;
  const auto set_option = [&](const std::string& name, const std::string& value) {
    const auto it = placement.options.find(name);
    if (it != placement.options.end() && it->second.value != value) {
      throw Error::invalid_argument(where + " ask for " + name + "=" + value + " but " +
                                    it->second.origin + " sets " + name + "=" + it->second.value +
                                    "; keep one");
    }
    placement.options[name] = {value, where};
  };
  if (requirements.disk_bytes) {
    throw Error::invalid_argument(where + ".disk: scheduler " + scheduler +
                                  " cannot reserve disk; drop the requirement");
  }
  if (!requirements.location.empty()) {
    if (!declared.has(scheduler, "location")) {
      throw Error::invalid_argument(where + ".location: scheduler " + scheduler +
                                    " has no 'location' run option; drop the requirement");
    }
    set_option("location", requirements.location);
  }
  const AcceleratorFamily family = accelerator_family(requirements.accelerator);
  if (family != AcceleratorFamily::kGpu && family != AcceleratorFamily::kTpu) return;
  if (declared.has(scheduler, "accelerator")) {
    set_option("accelerator", requirements.accelerator);
    if (family == AcceleratorFamily::kTpu) {
      if (!requirements.topology.empty() && declared.has(scheduler, "tpu_topology")) {
        set_option("tpu_topology", requirements.topology);
      } else if (declared.has(scheduler, "accelerator_count")) {
        set_option("accelerator_count", std::to_string(requirements.accelerator_count));
      }
    }
  } else if (family == AcceleratorFamily::kTpu) {
    throw Error::invalid_argument(where + ": scheduler " + scheduler + " cannot provide TPUs (" +
                                  requirements.accelerator +
                                  "); use an executor that runs on TPUs");
  }
}

Placement place(session::Session& ctx, DeclaredOptions& declared, const std::string& job_name,
                const Job& job) {
  const Executor& executor = job.executor;
  const std::string entry_name = executor.type + "." + job.executable.kind;
  const registry::Entry* entry = ctx.registry().find(registry::Group::kExecutors, entry_name);
  if (entry == nullptr) {
    throw Error::not_found("job '" + job_name + "': no plugin provides executor '" + executor.type +
                           "' for " + job.executable.kind +
                           " executables (no sortie.executors entry '" + entry_name +
                           "'; see `sortie plugins list`)");
  }
  rapidjson::Document data;
  data.Parse(entry->data_json.c_str());
  Placement placement;
  placement.scheduler = data["scheduler"].GetString();
  const std::string entry_origin =
      "executor entry " + entry_name + " (" + entry->manifest_path + ")";
  if (const auto options = data.FindMember("options");
      options != data.MemberEnd() && options->value.IsObject()) {
    for (const auto& option : options->value.GetObject()) {
      if (option.value.IsString()) {
        placement.options[option.name.GetString()] = {option.value.GetString(), entry_origin};
      }
    }
  }
  if (const auto workdir = data.FindMember("workdir");
      workdir != data.MemberEnd() && workdir->value.IsObject()) {
    auto& workdir_options = placement.workdir_options.emplace();
    if (const auto options = workdir->value.FindMember("options");
        options != workdir->value.MemberEnd() && options->value.IsObject()) {
      for (const auto& option : options->value.GetObject()) {
        if (option.value.IsString()) {
          workdir_options[option.name.GetString()] = {option.value.GetString(),
                                                      entry_origin + " workdir"};
        }
      }
    }
  }
  // A .sortieconfig's [SCHEDULER] section, as for `sortie run` (docs/config-trust.md), then the
  // job's own executor options.
  for (const auto& [name, value] : ctx.config().section(placement.scheduler)) {
    placement.options[name] = {value.value, value.origin, value.trusted};
  }
  for (const auto& [name, value] : executor.options) {
    placement.options[name] = {value, "job '" + job_name + "' executor options"};
  }
  carry_requirements(declared, job_name, executor.requirements, placement);
  return placement;
}

Role role_of(const std::string& job_name, const std::string& full_name, const WorkUnitJobs& unit,
             const Job& job, const std::string& launch_dir) {
  const Executable& executable = job.executable;
  const std::string where = "job '" + job_name + "'";
  const auto& ports = job.executor.docker_options.ports;
  if (!ports.empty() && executable.kind != "image") {
    throw Error::invalid_argument(
        where + ": executor docker_options.ports: only a container publishes ports; a " +
        executable.kind + " runs on the host and binds its ports there itself");
  }
  Role role;
  role.name = job_name;
  role.image = executable.kind == "image" ? executable.image : "";
  // Role metadata of the host (payloads.md P-1): sortie.local_image is read by remote schedulers
  // (such an image needs a push before they run it); local_docker publishes sortie.host_ports
  // and answers to sortie.job_name (XManager's full job name) on the app network, so one job
  // reaches another by work_unit.get_full_job_name(name).
  if (executable.built_locally) role.metadata.emplace_back("sortie.local_image", "true");
  if (executable.kind == "image")
    role.metadata.emplace_back("sortie.job_name", json_string(full_name));
  if (!ports.empty()) {
    std::string published;
    for (const auto& [container, host] : ports) {
      role.port_map.emplace_back("port-" + std::to_string(container), container);
      published += (published.empty() ? "{\"" : ",\"") + std::to_string(container) +
                   "\":" + std::to_string(host);
    }
    role.metadata.emplace_back("sortie.host_ports", published + "}");
  }
  role.entrypoint = executable.entrypoint;
  Args args = executable.args;
  args.merge(job.args);
  role.args = args.to_list();
  role.env.assign(executable.env_vars.begin(), executable.env_vars.end());
  for (const auto& [name, value] : job.env_vars) set_value(role.env, name, value);
  set_value(role.env, "SORTIE_EXPERIMENT_ID", std::to_string(unit.experiment_id));
  set_value(role.env, "SORTIE_WORK_UNIT_ID", std::to_string(unit.work_unit_id));
  set_value(role.env, "SORTIE_JOB_NAME", full_name);
  set_value(role.env, "SORTIE_LAUNCH_DIR", launch_dir);
  // Unlike ${app_id}, the same in every launch of the unit: checkpoint paths name them (P-12.2);
  // ${launch_dir} keeps a unit's outputs in the live directory when it runs from a snapshot.
  MacroValues macros;
  macros.set("experiment_id", std::to_string(unit.experiment_id))
      .set("work_unit_id", std::to_string(unit.work_unit_id))
      .set("launch_dir", launch_dir);
  for (std::string& arg : role.args) arg = macros.apply(arg);
  for (auto& entry : role.env) entry.second = macros.apply(entry.second);
  role.resource = to_resource(job.executor.requirements);
  if (job.executor.requirements.replicas) role.num_replicas = *job.executor.requirements.replicas;
  for (const auto& [host, container] : job.executor.docker_options.volumes) {
    Mount mount;
    mount.type = model::MountType::kBind;
    mount.src = host;
    mount.dst = container;
    role.mounts.push_back(mount);
  }
  return role;
}

// Runs a process role from the snapshot: its working directory, and its program when that lies
// in the launch directory (the binary packager's absolute path).
void run_from_snapshot(Role& role, const RunDirectory& run_directory,
                       const std::map<std::string, model::RawOpt>& workdir_options,
                       std::map<std::string, model::RawOpt>& run_options) {
  const std::string root = run_directory.snapshot_root();
  role.image = root;
  const std::string prefix = run_directory.launch_dir + "/";
  if (role.entrypoint.rfind(prefix, 0) == 0) {
    const std::string copied = root + "/" + role.entrypoint.substr(prefix.size());
    if (::access(copied.c_str(), F_OK) == 0) role.entrypoint = copied;
  }
  for (const auto& [name, option] : workdir_options) run_options[name] = option;
}

// One app of a work unit, dry-run and waiting to be submitted.
struct PreparedApp {
  size_t unit = 0;  // index into the launched units
  session::LaunchPlan plan;
  session::DryRunResult dry;
  std::vector<store::ExperimentJobRecord> records;
};

std::vector<PreparedApp> prepare_work_unit(session::Session& ctx, const std::string& session,
                                           DeclaredOptions& declared, const WorkUnitJobs& unit,
                                           size_t unit_index, const RunDirectory& run_directory) {
  if (unit.jobs.empty()) {
    throw Error::invalid_argument("work unit " + std::to_string(unit.work_unit_id) +
                                  " has no jobs");
  }
  // A gang is one app on one scheduler; separate jobs each get their own app.
  std::vector<std::vector<size_t>> apps;
  std::vector<Placement> placements;
  for (size_t i = 0; i < unit.jobs.size(); ++i) {
    Placement placement = place(ctx, declared, unit.jobs[i].first, unit.jobs[i].second);
    if (unit.gang && !placements.empty()) {
      if (!(placement == placements.front())) {
        throw Error::invalid_argument(
            "job group of work unit " + std::to_string(unit.work_unit_id) + ": jobs '" +
            unit.jobs.front().first + "' (scheduler " + placements.front().scheduler + ") and '" +
            unit.jobs[i].first + "' (scheduler " + placement.scheduler +
            ") need different schedulers or run options; a group is started and "
            "cancelled together by one scheduler, so give its jobs the same "
            "executor and executables of the same kind (processes or images)");
      }
      apps.front().push_back(i);
      continue;
    }
    placements.push_back(std::move(placement));
    apps.push_back({i});
  }

  std::vector<PreparedApp> prepared;
  for (size_t a = 0; a < apps.size(); ++a) {
    const std::string unit_name =
        std::to_string(unit.experiment_id) + "_" + std::to_string(unit.work_unit_id);
    PreparedApp app;
    app.unit = unit_index;
    session::LaunchPlan& plan = app.plan;
    plan.scheduler = placements[a].scheduler;
    plan.session = session;
    plan.raw_cfg = placements[a].options;
    plan.app.name = unit.gang ? unit_name : unit_name + "_" + unit.jobs[apps[a].front()].first;
    set_value(plan.app.metadata, "sortie.experiment_id", std::to_string(unit.experiment_id));
    set_value(plan.app.metadata, "sortie.work_unit_id", std::to_string(unit.work_unit_id));
    for (size_t index : apps[a]) {
      const auto& [job_name, job] = unit.jobs[index];
      const std::string full_name = full_job_name(unit.experiment_id, unit.work_unit_id, job_name);
      Role& role = plan.app.roles.emplace_back(
          role_of(job_name, full_name, unit, job, run_directory.launch_dir));
      if (job.executable.kind == "process" && placements[a].workdir_options &&
          run_directory.snapshot_root) {
        run_from_snapshot(role, run_directory, *placements[a].workdir_options, plan.raw_cfg);
      }
      app.records.push_back({job_name, full_name, "", job_name, job.executable.digest});
    }
    if (!unit.dry_run) {
      plan.work_unit = store::WorkUnitLink{unit.experiment_id, unit.work_unit_id, app.records};
    }
    model::validate(plan.app);
    auto scheduler = ctx.scheduler(plan.scheduler, session);
    app.dry = session::Launcher(ctx, *scheduler).dryrun(plan);
    prepared.push_back(std::move(app));
  }
  return prepared;
}

// Submits the dry-run apps; the apps of each scheduler instance go in one schedule_batch when it
// offers one, else one by one. Returns each unit's jobs.
std::vector<std::vector<LaunchedJob>> submit(session::Session& ctx, std::vector<PreparedApp>& apps,
                                             size_t unit_count, bool dry_run) {
  std::vector<std::vector<LaunchedJob>> launched(unit_count);
  // The store has the jobs already: the Launcher records them with the app, before submitting.
  const auto add_launched = [&](size_t i, const std::string& handle) {
    for (store::ExperimentJobRecord& job : apps[i].records) {
      job.handle = handle;
      launched[apps[i].unit].push_back({job, apps[i].dry.dryrun_json});
    }
  };
  std::map<std::string, std::vector<size_t>> by_scheduler;
  for (size_t i = 0; i < apps.size(); ++i) {
    if (dry_run) {
      add_launched(i, "");
    } else {
      by_scheduler[apps[i].plan.scheduler + "://" + apps[i].plan.session].push_back(i);
    }
  }
  for (const auto& [name, members] : by_scheduler) {
    const session::LaunchPlan& first = apps[members.front()].plan;
    auto scheduler = ctx.scheduler(first.scheduler, first.session);
    session::Launcher launcher(ctx, *scheduler);
    if (members.size() > 1 && scheduler->can_schedule_batch()) {
      std::vector<session::LaunchPlan> plans;
      std::vector<session::DryRunResult> dries;
      for (size_t i : members) {
        plans.push_back(apps[i].plan);
        dries.push_back(apps[i].dry);
      }
      const std::vector<std::string> handles = launcher.schedule_batch(plans, dries);
      for (size_t k = 0; k < members.size(); ++k) add_launched(members[k], handles[k]);
    } else {
      for (size_t i : members) add_launched(i, launcher.schedule(apps[i].plan, apps[i].dry));
    }
  }
  return launched;
}

// The app `handle` as recorded, dry-run again as the next attempt of the unit's jobs it runs.
PreparedApp prepare_recorded_app(session::Session& ctx, const store::WorkUnitRecord& unit,
                                 size_t unit_index, const std::string& handle) {
  const std::optional<store::AppRecord> record = ctx.records().get(handle);
  if (!record || record->appdef_json.empty()) {
    throw Error::not_found("work unit " + std::to_string(unit.work_unit_id) + ": app " + handle +
                           " is no longer in the store, so it cannot run again");
  }
  PreparedApp app;
  app.unit = unit_index;
  app.plan.app = model::appdef_from_json(record->appdef_json, handle);
  app.plan.scheduler = record->scheduler;
  app.plan.session = record->session;
  for (const store::ExperimentJobRecord& job : unit.jobs) {
    if (job.handle != handle) continue;
    store::ExperimentJobRecord& next = app.records.emplace_back(job);
    next.handle.clear();
    ++next.attempt;
  }
  app.plan.work_unit = store::WorkUnitLink{unit.experiment_id, unit.work_unit_id, app.records};
  auto scheduler = ctx.scheduler(app.plan.scheduler, app.plan.session);
  app.dry = session::Launcher(ctx, *scheduler)
                .dryrun_recorded(app.plan, record->cfg_json.empty() ? "{}" : record->cfg_json);
  return app;
}

}  // namespace

std::vector<std::vector<LaunchedJob>> launch_work_units(session::Session& ctx,
                                                        const std::string& session,
                                                        const std::vector<WorkUnitJobs>& units,
                                                        const RunDirectory& run_directory) {
  DeclaredOptions declared(ctx, session);
  std::vector<PreparedApp> apps;
  for (size_t u = 0; u < units.size(); ++u) {
    for (PreparedApp& app : prepare_work_unit(ctx, session, declared, units[u], u, run_directory)) {
      apps.push_back(std::move(app));
    }
  }
  return submit(ctx, apps, units.size(), !units.empty() && units.front().dry_run);
}

std::vector<std::vector<LaunchedJob>> relaunch_work_units(
    session::Session& ctx, const std::vector<store::WorkUnitRecord>& units) {
  std::vector<PreparedApp> apps;
  for (size_t u = 0; u < units.size(); ++u) {
    std::set<std::string> handles;
    for (const store::ExperimentJobRecord& job : units[u].jobs) {
      if (handles.insert(job.handle).second) {
        apps.push_back(prepare_recorded_app(ctx, units[u], u, job.handle));
      }
    }
  }
  return submit(ctx, apps, units.size(), false);
}

}  // namespace sortie::xm::detail
