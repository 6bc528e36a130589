// sortie::xm::Experiment (include/sortie/xm.hpp) over a session: the same registry,
// plugin host, store and submit pipeline as `sortie run`, so an experiment launched from C++ is
// seen and cancelled by the CLI and the other way round.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/printable.hpp>
#include <sortie/model/secret_env.hpp>
#include <sortie/session/app_cancel.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/launch_marker.hpp>
#include <sortie/session/session.hpp>
#include <sortie/xm.hpp>
#include <sortie/xm/jobs.hpp>
#include <sortie/xm/session_binding.hpp>
#include <sortie/xm/workdir_snapshot.hpp>

#include "annotations.hpp"
#include "code_record.hpp"
#include "packaging.hpp"
#include "work_unit_launch.hpp"

namespace sortie::xm::detail {

session::SessionOptions session_options(const Options& options) {
  return session::SessionOptions{options.plugin_dirs,
                                 options.session,
                                 options.isolate_plugins,
                                 options.quiet,
                                 std::nullopt,
                                 session::print_registry_problem,
                                 session::print_builtin_shadowed,
                                 session::print_reconciled,
                                 session::print_measurements_note};
}

}  // namespace sortie::xm::detail

namespace sortie::xm {
namespace {

State state_of(model::AppState state) {
  switch (state) {
    case model::AppState::kUnsubmitted:
    case model::AppState::kSubmitted:
    case model::AppState::kPending:
      return State::kPending;
    case model::AppState::kRunning:
      return State::kRunning;
    case model::AppState::kSucceeded:
      return State::kSucceeded;
    case model::AppState::kFailed:
      return State::kFailed;
    case model::AppState::kCancelled:
      return State::kCancelled;
    case model::AppState::kUnknown:
      break;
  }
  return State::kUnknown;
}

State aggregate(const std::vector<State>& states) {
  if (states.empty()) return State::kUnknown;
  const auto any = [&](State wanted) {
    for (State state : states) {
      if (state == wanted) return true;
    }
    return false;
  };
  if (any(State::kRunning)) return State::kRunning;
  if (any(State::kPending)) return State::kPending;
  if (any(State::kUnknown)) return State::kUnknown;
  if (any(State::kFailed)) return State::kFailed;
  if (any(State::kCancelled)) return State::kCancelled;
  return State::kSucceeded;
}

std::string overrides_json(const std::vector<std::pair<std::string, Job>>& jobs) {
  session::JsonText json;
  json.begin_object();
  for (const auto& [name, job] : jobs) {
    json.key(name).begin_object().key("args").begin_array();
    for (const std::string& word : job.args.to_list()) json.string(word);
    json.end_array().key("env_vars").begin_object();
    for (const auto& [key, value] : job.env_vars) json.key(key).string(value);
    json.end_object().end_object();
  }
  json.end_object();
  return json.str();
}

// Where relative executable paths resolve: `launch_dir` made absolute, or the working directory.
std::string absolute_launch_dir(const std::string& launch_dir) {
  return std::filesystem::absolute(launch_dir.empty() ? std::filesystem::current_path()
                                                      : std::filesystem::path(launch_dir))
      .lexically_normal()
      .string();
}

// The jobs of `group` by flattened name, each with its overrides from `args` applied.
std::vector<std::pair<std::string, Job>> group_jobs(const JobGroup& group, const GroupArgs& args) {
  std::vector<std::pair<std::string, Job>> jobs;
  std::set<std::string> names;
  for (const FlatJob& flat : flatten(group)) {
    Job job = *flat.job;
    job.name = flat.name;
    if (const auto it = args.find(flat.name); it != args.end()) apply_args(job, it->second);
    validate_env_vars(job.env_vars, "job '" + flat.name + "': env_vars");
    names.insert(flat.name);
    jobs.emplace_back(flat.name, std::move(job));
  }
  for (const auto& [name, overrides] : args) {
    if (names.count(name) == 0) {
      throw Error::not_found("work unit args name job '" + name +
                             "', which is not in the job group");
    }
  }
  if (jobs.empty()) throw Error::invalid_argument("the job group has no jobs");
  return jobs;
}

}  // namespace

const char* to_string(State state) {
  switch (state) {
    case State::kPending:
      return "PENDING";
    case State::kRunning:
      return "RUNNING";
    case State::kSucceeded:
      return "SUCCEEDED";
    case State::kFailed:
      return "FAILED";
    case State::kCancelled:
      return "CANCELLED";
    case State::kUnknown:
      break;
  }
  return "UNKNOWN";
}

class Experiment::Impl {
 public:
  explicit Impl(const Options& options)
      : owned_(std::in_place, detail::session_options(options)),
        ctx_(*owned_),
        launch_dir_(absolute_launch_dir(options.launch_dir)),
        live_workdir_(options.live_workdir) {}
  Impl(session::Session& borrowed, const std::string& launch_dir)
      : ctx_(borrowed), launch_dir_(absolute_launch_dir(launch_dir)) {}

  std::optional<session::Session> owned_;  // none when over the CLI's session
  session::Session& ctx_;
  std::string launch_dir_;
  bool live_workdir_ = false;
  bool reopened_ = false;                    // recorded before this process: its snapshot stays
  std::optional<WorkdirSnapshot> snapshot_;  // taken at the first launch of process units
  int64_t id_ = 0;                           // 0 until recorded
  std::string title_;
  std::string launch_script_;  // recorded with the experiment (code_record.hpp)
  bool dry_run_ = false;
  // A dry run records nothing: a launcher's notes and tags are kept here instead.
  std::string dry_run_notes_;
  std::set<std::string> dry_run_tags_;
  int dry_run_units_ = 0;

  // The experiment's id, recording it first if no one needed it yet: an experiment whose
  // packaging fails before it is shown or given a work unit leaves no record behind.
  int64_t recorded_id() {
    if (id_ == 0 && !dry_run_) {
      // A launch declared before the experiment was recorded is marked from its first record on.
      if (launch_declared_) {
        declared_launch_.emplace(*this, declared_units_);
      } else {
        record(std::nullopt);
      }
    }
    return id_;
  }

  // Records the experiment, with what its launch ran and `launch`'s mark, in one transaction.
  void record(const std::optional<store::LaunchMarker>& launch) {
    id_ = ctx_.store().create_experiment(title_, launch_dir_, launch,
                                         detail::code_record_json(launch_dir_, launch_script_));
  }

  using UnitJobs = std::vector<std::pair<std::string, Job>>;

  // Marks a launch as under way (session/launch_marker.hpp) for as long as it lives.
  class LaunchMark {
   public:
    LaunchMark(Impl& impl, std::optional<int64_t> units) : impl_(impl) {
      const store::LaunchMarker mark = session::this_process_launch(units);
      if (impl_.id_ == 0) {
        impl_.record(mark);
      } else {
        impl_.ctx_.store().begin_launch(impl_.id_, mark);
      }
    }
    ~LaunchMark() {
      try {
        impl_.ctx_.store().finish_launch(impl_.id_, "");
      } catch (const Error& error) {
        // The mark stays; once this process is gone the experiment reads PARTIAL.
        std::fprintf(stderr, "sortie: experiment %lld: %s\n", static_cast<long long>(impl_.id_),
                     model::printable_message(error.what()).c_str());
      }
    }
    LaunchMark(const LaunchMark&) = delete;
    LaunchMark& operator=(const LaunchMark&) = delete;

   private:
    Impl& impl_;
  };
  // begin_launch() .. finish_launch(); the mark exists once the experiment is recorded, so a
  // launch that fails before (packaging) leaves no experiment behind, partial or not.
  bool launch_declared_ = false;
  std::optional<int64_t> declared_units_;
  std::optional<LaunchMark> declared_launch_;

  // Launches the units together (one batch per scheduler that offers one); in order.
  std::vector<WorkUnit> launch(std::vector<UnitJobs> units, bool gang) {
    check_work_unit_count(units.size(),
                          "adding " + std::to_string(units.size()) + " work units at once");
    std::optional<LaunchMark> batch_launch;
    if (!launch_declared_ && !dry_run_)
      batch_launch.emplace(*this, static_cast<int64_t>(units.size()));
    std::vector<detail::WorkUnitJobs> unit_jobs;
    std::vector<std::string> unit_args;
    for (UnitJobs& jobs : units) {
      // A dry run records nothing: its work units are numbered here, under experiment 0.
      unit_args.push_back(dry_run_ ? "" : overrides_json(jobs));
      const int unit_id = dry_run_
                              ? ++dry_run_units_
                              : ctx_.store().reserve_work_unit(recorded_id(), unit_args.back());
      unit_jobs.push_back({id_, unit_id, std::move(jobs), gang, dry_run_});
    }
    detail::RunDirectory run_directory{launch_dir_, nullptr};
    if (!live_workdir_ && !dry_run_)
      run_directory.snapshot_root = [this] { return snapshot_root(); };
    const auto launched_units =
        detail::launch_work_units(ctx_, ctx_.options().session, unit_jobs, run_directory);
    std::vector<WorkUnit> launched(unit_jobs.size());
    for (size_t u = 0; u < unit_jobs.size(); ++u) {
      launched[u].experiment_id = id_;
      launched[u].id = unit_jobs[u].work_unit_id;
      launched[u].args_json = unit_args[u];
      for (const detail::LaunchedJob& job : launched_units[u]) {
        launched[u].jobs.push_back({job.record.full_name, job.record.handle, job.record.role,
                                    State::kPending, job.dryrun_json, job.record.executable_digest,
                                    job.record.attempt});
      }
    }
    return launched;
  }

  // The recorded units `selection` picks, refusing those still running and ids it does not have.
  std::vector<store::WorkUnitRecord> rerun_units(const RerunSelection& selection) {
    std::set<int> listed(selection.units.begin(), selection.units.end());
    std::map<int, State> states;
    for (const WorkUnit& unit : refresh()) states[unit.id] = unit.state;
    std::string missing;
    for (int id : listed) {
      if (states.count(id) == 0) missing += (missing.empty() ? "" : ", ") + std::to_string(id);
    }
    if (!missing.empty()) {
      throw Error::not_found("experiment " + std::to_string(id_) + " has no work unit " + missing +
                             " (see `sortie experiments show " + std::to_string(id_) + "`)");
    }
    std::vector<store::WorkUnitRecord> picked;
    std::string running;
    for (const store::WorkUnitRecord& record : ctx_.records().work_units(id_)) {
      const State state = states[record.work_unit_id];
      const bool selected = listed.count(record.work_unit_id) != 0 ||
                            (selection.failed && state == State::kFailed) ||
                            (selection.cancelled && state == State::kCancelled);
      if (!selected) continue;
      if (state == State::kPending || state == State::kRunning || state == State::kUnknown) {
        running += (running.empty() ? "" : ", ") + std::to_string(record.work_unit_id) + " (" +
                   to_string(state) + ")";
        continue;
      }
      if (record.jobs.empty()) {
        throw Error::not_found(
            "work unit " + std::to_string(record.work_unit_id) +
            " never launched, so there is nothing recorded to run again (rerun --missing, which "
            "would launch it, is not supported yet)");
      }
      picked.push_back(record);
    }
    if (!running.empty()) {
      throw Error::invalid_argument(
          "work unit " + running + " of experiment " + std::to_string(id_) +
          " has not ended: a unit runs again only once it is over (wait for it, or `sortie "
          "experiments cancel " +
          std::to_string(id_) + "`)");
    }
    if (picked.empty()) {
      throw Error::invalid_argument("no work unit of experiment " + std::to_string(id_) +
                                    " matches the selection; nothing to run again");
    }
    return picked;
  }

  // The experiment's snapshot of its launch directory: one for all its units, the one recorded
  // when it was reopened from the same launch directory.
  const std::string& snapshot_root() {
    if (!snapshot_ && reopened_) {
      snapshot_ = read_workdir_snapshot(recorded_id());
      if (snapshot_ && snapshot_->launch_dir != launch_dir_) snapshot_.reset();
    }
    if (!snapshot_) {
      snapshot_ = take_workdir_snapshot(recorded_id(), launch_dir_);
      for (const std::string& warning : snapshot_->warnings) {
        std::fprintf(stderr, "sortie: experiment %lld: %s\n", static_cast<long long>(recorded_id()),
                     warning.c_str());
      }
    }
    return snapshot_->root;
  }

  // The job with the state last recorded of its app: an earlier attempt's, which has ended.
  JobHandle as_recorded(const store::ExperimentJobRecord& job) {
    const std::optional<model::AppStatus> status = ctx_.records().last_status(job.handle);
    return {job.full_name,
            job.handle,
            job.role,
            status ? state_of(status->state) : State::kUnknown,
            "",
            job.executable_digest,
            job.attempt};
  }

  // Every recorded work unit with its jobs' current states (asked of their schedulers).
  std::vector<WorkUnit> refresh() {
    std::map<std::string, State> by_handle;
    std::vector<WorkUnit> units;
    for (const store::WorkUnitRecord& record : ctx_.records().work_units(id_)) {
      WorkUnit unit;
      unit.experiment_id = id_;
      unit.id = record.work_unit_id;
      unit.args_json = record.args_json;
      std::vector<State> states;
      for (const store::ExperimentJobRecord& job : record.jobs) {
        auto known = by_handle.find(job.handle);
        if (known == by_handle.end()) {
          // A terminal state recorded is final: only the others are asked of their scheduler.
          std::optional<model::AppStatus> status = ctx_.records().last_status(job.handle);
          if (!status || !model::is_terminal(status->state)) {
            status = session::lookup_app(ctx_, job.handle).status;
          }
          known = by_handle.emplace(job.handle, status ? state_of(status->state) : State::kUnknown)
                      .first;
        }
        unit.jobs.push_back({job.full_name, job.handle, job.role, known->second, "",
                             job.executable_digest, job.attempt});
        unit.attempt = job.attempt;
        states.push_back(known->second);
      }
      for (const store::ExperimentJobRecord& job : record.earlier_jobs) {
        unit.earlier_jobs.push_back(as_recorded(job));
      }
      if (!record.jobs.empty()) unit.output_dir = recorded_output_dir(record.jobs.front().handle);
      // A work unit whose launch failed has no jobs: it never ran.
      unit.state = states.empty() ? State::kFailed : aggregate(states);
      units.push_back(std::move(unit));
    }
    return units;
  }

  // The output directory the store recorded with the app; "" for an app recorded before there
  // were any, or whose record cannot be read.
  std::string recorded_output_dir(const std::string& handle) {
    const std::optional<store::AppRecord> record = ctx_.records().get(handle);
    if (!record || record->appdef_json.empty()) return "";
    try {
      return model::appdef_from_json(record->appdef_json, handle).output_dir;
    } catch (const Error&) {
      return "";
    }
  }

  std::set<std::string> handles() {
    std::set<std::string> found;
    for (const store::WorkUnitRecord& unit : ctx_.records().work_units(id_)) {
      for (const store::ExperimentJobRecord& job : unit.jobs) found.insert(job.handle);
    }
    return found;
  }
};

Experiment::Experiment(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Experiment::~Experiment() = default;
Experiment::Experiment(Experiment&&) noexcept = default;
Experiment& Experiment::operator=(Experiment&&) noexcept = default;

Experiment Experiment::create(const std::string& title, const Options& options) {
  auto impl = std::make_unique<Impl>(options);
  impl->title_ = title;  // recorded by recorded_id()
  impl->launch_script_ = options.launch_script;
  impl->dry_run_ = options.dry_run;
  return Experiment(std::move(impl));
}

Experiment Experiment::get(int64_t id, const Options& options) {
  return SessionBinding::reopened(std::make_unique<Impl>(options), id, options.launch_dir.empty());
}

Experiment SessionBinding::create(session::Session& session, const std::string& title,
                                  const std::string& launch_dir, const std::string& launch_script) {
  auto impl = std::make_unique<Experiment::Impl>(session, launch_dir);
  impl->title_ = title;
  impl->launch_script_ = launch_script;
  return Experiment(std::move(impl));
}

void SessionBinding::use_live_workdir(Experiment& experiment) {
  experiment.impl_->live_workdir_ = true;
}

Experiment SessionBinding::get(session::Session& session, int64_t id) {
  return reopened(std::make_unique<Experiment::Impl>(session, ""), id, true);
}

Experiment SessionBinding::reopened(std::unique_ptr<Experiment::Impl> impl, int64_t id,
                                    bool recorded_launch_dir) {
  const auto record = impl->ctx_.records().experiment(id);
  if (!record) {
    throw Error::not_found("no experiment " + std::to_string(id) +
                           " in the store (see `sortie experiments list`)");
  }
  impl->id_ = record->id;
  impl->reopened_ = true;
  impl->title_ = record->title;
  if (recorded_launch_dir) impl->launch_dir_ = record->launch_dir;
  return Experiment(std::move(impl));
}

std::vector<int64_t> Experiment::list_ids(const Options& options) {
  Impl impl(options);
  std::vector<int64_t> ids;
  for (const store::ExperimentRecord& record : impl.ctx_.records().experiments(0)) {
    ids.push_back(record.id);
  }
  return ids;
}

int64_t Experiment::id() const { return impl_->recorded_id(); }
const std::string& Experiment::title() const { return impl_->title_; }

std::vector<Executable> Experiment::package(const std::vector<Packageable>& packageables) {
  return detail::package_executables(impl_->ctx_, impl_->launch_dir_, packageables);
}

WorkUnit Experiment::add(const Job& job, const JobArgs& args) {
  return add_sweep(job, {args}).front();
}

std::vector<WorkUnit> Experiment::add_sweep(const Job& job, const std::vector<JobArgs>& units) {
  std::vector<Job> jobs;
  for (const JobArgs& args : units) {
    Job& resolved = jobs.emplace_back(job);
    if (resolved.name.empty()) resolved.name = job.executable.name;
    apply_args(resolved, args);
  }
  return add_units(jobs);
}

std::vector<WorkUnit> Experiment::add_units(const std::vector<Job>& jobs) {
  std::vector<Impl::UnitJobs> unit_jobs;
  for (Job job : jobs) {
    if (job.name.empty()) job.name = job.executable.name;
    validate_env_vars(job.env_vars, "job '" + job.name + "': env_vars");
    unit_jobs.emplace_back().emplace_back(job.name, std::move(job));
  }
  return impl_->launch(std::move(unit_jobs), false);
}

WorkUnit Experiment::add(const JobGroup& group, const GroupArgs& args) {
  return add_sweep(group, {args}).front();
}

std::vector<WorkUnit> Experiment::add_sweep(const JobGroup& group,
                                            const std::vector<GroupArgs>& units) {
  std::vector<Impl::UnitJobs> unit_jobs;
  for (const GroupArgs& args : units) unit_jobs.push_back(group_jobs(group, args));
  return impl_->launch(std::move(unit_jobs), true);
}

std::vector<WorkUnit> Experiment::add_units(const std::vector<JobGroup>& groups) {
  std::vector<Impl::UnitJobs> unit_jobs;
  for (const JobGroup& group : groups) unit_jobs.push_back(group_jobs(group, {}));
  return impl_->launch(std::move(unit_jobs), true);
}

void Experiment::begin_launch(std::optional<int64_t> units) {
  if (impl_->dry_run_ || impl_->launch_declared_) return;
  impl_->launch_declared_ = true;
  impl_->declared_units_ = units;
  if (impl_->id_ != 0) impl_->declared_launch_.emplace(*impl_, units);
}

void Experiment::finish_launch() {
  impl_->declared_launch_.reset();
  impl_->launch_declared_ = false;
}

std::string Experiment::partial_reason() {
  if (impl_->id_ == 0) return "";
  const auto record = impl_->ctx_.records().experiment(impl_->id_);
  if (!record) return "";
  return session::partial_reason(*record, impl_->ctx_.records().work_units(impl_->id_));
}

std::string Experiment::notes() {
  if (impl_->dry_run_) return impl_->dry_run_notes_;
  return impl_->ctx_.records().experiment(impl_->recorded_id())->notes;
}

void Experiment::set_notes(const std::string& notes) {
  detail::check_notes(notes);
  if (impl_->dry_run_) {
    impl_->dry_run_notes_ = notes;
    return;
  }
  impl_->ctx_.store().set_experiment_notes(impl_->recorded_id(), notes);
}

std::vector<std::string> Experiment::tags() {
  if (impl_->dry_run_) return {impl_->dry_run_tags_.begin(), impl_->dry_run_tags_.end()};
  return impl_->ctx_.records().experiment(impl_->recorded_id())->tags;
}

void Experiment::add_tags(const std::vector<std::string>& tags) {
  std::vector<std::string> words;
  for (const std::string& tag : tags) words.push_back("+" + tag);
  edit_tags(words);
}

void Experiment::remove_tags(const std::vector<std::string>& tags) {
  std::vector<std::string> words;
  for (const std::string& tag : tags) words.push_back("-" + tag);
  edit_tags(words);
}

void Experiment::annotate(const std::optional<std::string>& notes,
                          const std::vector<std::string>& words) {
  if (notes) detail::check_notes(*notes);
  if (!words.empty()) edit_tags(words);
  if (notes) set_notes(*notes);
}

void Experiment::edit_tags(const std::vector<std::string>& words) {
  std::map<std::string, bool> wanted;
  for (const std::string& word : words) {
    if (word.size() < 2 || (word[0] != '+' && word[0] != '-')) {
      throw Error::invalid_argument("'" + word +
                                    "' is neither +TAG (add a tag) nor -TAG (remove one)");
    }
    wanted[word.substr(1)] = word[0] == '+';
  }
  std::vector<std::string> added;
  std::vector<std::string> removed;
  for (const auto& [tag, add] : wanted) (add ? added : removed).push_back(tag);
  detail::check_tags(added);
  std::vector<std::string> current = tags();
  std::set<std::string> after(current.begin(), current.end());
  for (const auto& [tag, add] : wanted) {
    if (add) {
      after.insert(tag);
    } else {
      after.erase(tag);
    }
  }
  detail::check_tag_count(after.size());
  if (impl_->dry_run_) {
    impl_->dry_run_tags_ = std::move(after);
    return;
  }
  impl_->ctx_.store().edit_experiment_tags(impl_->recorded_id(), added, removed);
}

std::string Experiment::code_record() {
  if (impl_->dry_run_) return "";
  // The script's text may spell a secret its jobs get (an experiment file's env_vars): the values
  // of the secret env vars of the experiment's apps show nowhere (TRUST-7).
  std::vector<std::string> secrets;
  for (const std::string& handle : impl_->handles()) {
    const auto record = impl_->ctx_.records().get(handle);
    if (!record || record->appdef_json.empty()) continue;
    const auto found =
        model::secret_env_values(model::appdef_from_json(record->appdef_json, handle));
    secrets.insert(secrets.end(), found.begin(), found.end());
  }
  std::sort(secrets.begin(), secrets.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return detail::masked_code_record(impl_->ctx_.records().experiment_code(impl_->recorded_id()),
                                    secrets);
}

std::vector<WorkUnit> Experiment::work_units() { return impl_->refresh(); }

std::vector<WorkUnit> Experiment::rerun(const RerunSelection& selection) {
  const std::vector<store::WorkUnitRecord> units = impl_->rerun_units(selection);
  const auto launched_units = detail::relaunch_work_units(impl_->ctx_, units);
  std::vector<WorkUnit> launched(units.size());
  for (size_t u = 0; u < units.size(); ++u) {
    launched[u].experiment_id = impl_->id_;
    launched[u].id = units[u].work_unit_id;
    launched[u].args_json = units[u].args_json;
    launched[u].attempt = units[u].jobs.front().attempt + 1;
    for (const auto* attempts : {&units[u].earlier_jobs, &units[u].jobs}) {
      for (const store::ExperimentJobRecord& job : *attempts) {
        launched[u].earlier_jobs.push_back(impl_->as_recorded(job));
      }
    }
    for (const detail::LaunchedJob& job : launched_units[u]) {
      launched[u].jobs.push_back({job.record.full_name, job.record.handle, job.record.role,
                                  State::kPending, job.dryrun_json, job.record.executable_digest,
                                  job.record.attempt});
    }
  }
  return launched;
}

State state_of(const std::vector<WorkUnit>& units) {
  std::vector<State> states;
  for (const WorkUnit& unit : units) states.push_back(unit.state);
  return aggregate(states);
}

State Experiment::state() { return state_of(impl_->refresh()); }

State Experiment::wait_until_complete(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // One client per scheduler instance for every app it runs, so that a scheduler that answers
  // many apps from one poll (slurm: one squeue) is polled once, not once per app.
  std::map<std::string, std::unique_ptr<plugin_host::SchedulerClient>> schedulers;
  for (const std::string& handle : impl_->handles()) {
    if (session::interrupted() != 0) break;  // the caller decides what an interruption means
    int64_t left_ms = -1;
    if (timeout.count() >= 0) {
      left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                    deadline - std::chrono::steady_clock::now())
                    .count();
      if (left_ms <= 0) break;  // out of time: the state says what is still running
    }
    const std::optional<model::AppStatus> recorded = impl_->ctx_.records().last_status(handle);
    if (recorded && model::is_terminal(recorded->state)) continue;
    const model::AppHandle parsed = model::parse_app_handle(handle);
    if (impl_->ctx_.registry().find(registry::Group::kSchedulers, parsed.scheduler) == nullptr) {
      continue;  // its plugin is gone: its record is all there is
    }
    std::unique_ptr<plugin_host::SchedulerClient>& scheduler =
        schedulers[parsed.scheduler + "://" + parsed.session];
    if (!scheduler) scheduler = impl_->ctx_.scheduler(parsed.scheduler, parsed.session);
    if (!scheduler->describe(parsed.app_id)) continue;  // unknown to it: nothing to wait for
    session::AppWaiter waiter(*scheduler, impl_->ctx_, handle, parsed.app_id);
    waiter.until_terminal(left_ms);
  }
  return state();
}

void Experiment::cancel() {
  // The unfinished apps of each scheduler instance ("scheduler://session"), so that each gets one
  // cancel call for them all (ABI-15: one scancel for a Slurm sweep).
  std::map<std::string, std::vector<session::AppToCancel>> apps_by_scheduler;
  for (const std::string& handle : impl_->handles()) {
    const std::optional<model::AppStatus> recorded = impl_->ctx_.records().last_status(handle);
    if (recorded && model::is_terminal(recorded->state)) continue;
    const model::AppHandle parsed = model::parse_app_handle(handle);
    // An app whose plugin is gone cannot be cancelled by anyone here; its record stands.
    if (impl_->ctx_.registry().find(registry::Group::kSchedulers, parsed.scheduler) == nullptr) {
      continue;
    }
    apps_by_scheduler[parsed.scheduler + "://" + parsed.session].push_back({handle, parsed.app_id});
  }
  const std::string reason = "experiment " + std::to_string(impl_->id_) + " cancelled";
  std::vector<session::CancelFailure> failures;
  for (const auto& [scheduler_and_session, apps] : apps_by_scheduler) {
    const model::AppHandle first = model::parse_app_handle(apps.front().handle);
    const auto scheduler = impl_->ctx_.scheduler(first.scheduler, first.session);
    for (session::CancelFailure& failure :
         session::cancel_apps(*scheduler, impl_->ctx_, apps, reason)) {
      failures.push_back(std::move(failure));
    }
  }
  if (failures.empty()) return;
  std::string message = "experiment " + std::to_string(impl_->id_) + ": " +
                        std::to_string(failures.size()) + " app(s) could not be cancelled";
  for (const session::CancelFailure& failure : failures) {
    message += "; " + failure.handle + ": " + failure.error.what();
  }
  throw Error(failures.front().error.code(), message);
}

}  // namespace sortie::xm
