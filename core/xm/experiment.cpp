// sortie::xm::Experiment (include/sortie/xm.hpp) over a session: the same registry,
// plugin host, store and submit pipeline as `sortie run`, so an experiment launched from C++ is
// seen and cancelled by the CLI and the other way round.
#include <cstdio>
#include <filesystem>
#include <set>
#include <sortie/core/error.hpp>
#include <sortie/core/printable.hpp>
#include <sortie/core/xm_jobs.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/launch_marker.hpp>
#include <sortie/session/session.hpp>
#include <sortie/xm.hpp>
#include <sortie/xm/session_binding.hpp>

#include "packaging.hpp"
#include "work_unit_launch.hpp"

namespace sortie::xm_impl {

session::SessionOptions session_options(const xm::Options& options) {
  return session::SessionOptions{options.plugin_dirs,
                                 options.session,
                                 options.isolate_plugins,
                                 options.quiet,
                                 std::nullopt,
                                 session::print_registry_problem,
                                 session::print_builtin_shadowed,
                                 session::print_reconciled};
}

}  // namespace sortie::xm_impl

namespace sortie::xm {
namespace {

State state_of(core::AppState state) {
  switch (state) {
    case core::AppState::kUnsubmitted:
    case core::AppState::kSubmitted:
    case core::AppState::kPending:
      return State::kPending;
    case core::AppState::kRunning:
      return State::kRunning;
    case core::AppState::kSucceeded:
      return State::kSucceeded;
    case core::AppState::kFailed:
      return State::kFailed;
    case core::AppState::kCancelled:
      return State::kCancelled;
    case core::AppState::kUnknown:
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
  for (const core::FlatJob& flat : core::flatten(group)) {
    Job job = *flat.job;
    job.name = flat.name;
    if (const auto it = args.find(flat.name); it != args.end()) core::apply_args(job, it->second);
    validate_env_vars(job.env_vars, "job '" + flat.name + "': env_vars");
    names.insert(flat.name);
    jobs.emplace_back(flat.name, std::move(job));
  }
  for (const auto& [name, overrides] : args) {
    if (names.count(name) == 0) {
      throw core::Error::not_found("work unit args name job '" + name +
                                   "', which is not in the job group");
    }
  }
  if (jobs.empty()) throw core::Error::invalid_argument("the job group has no jobs");
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
      : owned_(std::in_place, xm_impl::session_options(options)),
        ctx_(*owned_),
        launch_dir_(absolute_launch_dir(options.launch_dir)) {}
  Impl(session::Session& borrowed, const std::string& launch_dir)
      : ctx_(borrowed), launch_dir_(absolute_launch_dir(launch_dir)) {}

  std::optional<session::Session> owned_;  // none when over the CLI's session
  session::Session& ctx_;
  std::string launch_dir_;
  int64_t id_ = 0;  // 0 until recorded
  std::string title_;
  bool dry_run_ = false;
  int dry_run_units_ = 0;

  // The experiment's id, recording it first if no one needed it yet: an experiment whose
  // packaging fails before it is shown or given a work unit leaves no record behind.
  int64_t recorded_id() {
    if (id_ == 0 && !dry_run_) {
      id_ = ctx_.store().create_experiment(title_, launch_dir_);
      // A launch declared before the experiment was recorded is marked from its first record on.
      if (launch_declared_) declared_launch_.emplace(*this, declared_units_);
    }
    return id_;
  }

  using UnitJobs = std::vector<std::pair<std::string, Job>>;

  // Marks a launch as under way (session/launch_marker.hpp) for as long as it lives.
  class LaunchMark {
   public:
    LaunchMark(Impl& impl, std::optional<int64_t> units) : impl_(impl) {
      impl_.ctx_.store().begin_launch(impl_.recorded_id(), session::this_process_launch(units));
    }
    ~LaunchMark() {
      try {
        impl_.ctx_.store().finish_launch(impl_.id_, "");
      } catch (const core::Error& error) {
        // The mark stays; once this process is gone the experiment reads PARTIAL.
        std::fprintf(stderr, "sortie: experiment %lld: %s\n", static_cast<long long>(impl_.id_),
                     core::printable_message(error.what()).c_str());
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
    std::vector<xm_impl::WorkUnitJobs> unit_jobs;
    for (UnitJobs& jobs : units) {
      // A dry run records nothing: its work units are numbered here, under experiment 0.
      const int unit_id = dry_run_
                              ? ++dry_run_units_
                              : ctx_.store().reserve_work_unit(recorded_id(), overrides_json(jobs));
      unit_jobs.push_back({id_, unit_id, std::move(jobs), gang, dry_run_});
    }
    const auto launched_units = xm_impl::launch_work_units(ctx_, ctx_.options().session, unit_jobs);
    std::vector<WorkUnit> launched(unit_jobs.size());
    for (size_t u = 0; u < unit_jobs.size(); ++u) {
      launched[u].experiment_id = id_;
      launched[u].id = unit_jobs[u].work_unit_id;
      for (const xm_impl::LaunchedJob& job : launched_units[u]) {
        launched[u].jobs.push_back({job.record.full_name, job.record.handle, job.record.role,
                                    State::kPending, job.dryrun_json});
      }
    }
    return launched;
  }

  // Every recorded work unit with its jobs' current states (asked of their schedulers).
  std::vector<WorkUnit> refresh() {
    std::map<std::string, State> by_handle;
    std::vector<WorkUnit> units;
    for (const core::WorkUnitRecord& record : ctx_.records().work_units(id_)) {
      WorkUnit unit;
      unit.experiment_id = id_;
      unit.id = record.work_unit_id;
      std::vector<State> states;
      for (const core::ExperimentJobRecord& job : record.jobs) {
        auto known = by_handle.find(job.handle);
        if (known == by_handle.end()) {
          const session::AppLookup app = session::lookup_app(ctx_, job.handle);
          known =
              by_handle
                  .emplace(job.handle, app.status ? state_of(app.status->state) : State::kUnknown)
                  .first;
        }
        unit.jobs.push_back({job.full_name, job.handle, job.role, known->second, ""});
        states.push_back(known->second);
      }
      // A work unit whose launch failed has no jobs: it never ran.
      unit.state = states.empty() ? State::kFailed : aggregate(states);
      units.push_back(std::move(unit));
    }
    return units;
  }

  std::set<std::string> handles() {
    std::set<std::string> found;
    for (const core::WorkUnitRecord& unit : ctx_.records().work_units(id_)) {
      for (const core::ExperimentJobRecord& job : unit.jobs) found.insert(job.handle);
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
  impl->dry_run_ = options.dry_run;
  return Experiment(std::move(impl));
}

Experiment Experiment::get(int64_t id, const Options& options) {
  return SessionBinding::reopened(std::make_unique<Impl>(options), id, options.launch_dir.empty());
}

Experiment SessionBinding::create(session::Session& session, const std::string& title,
                                  const std::string& launch_dir) {
  auto impl = std::make_unique<Experiment::Impl>(session, launch_dir);
  impl->title_ = title;
  return Experiment(std::move(impl));
}

Experiment SessionBinding::get(session::Session& session, int64_t id) {
  return reopened(std::make_unique<Experiment::Impl>(session, ""), id, true);
}

Experiment SessionBinding::reopened(std::unique_ptr<Experiment::Impl> impl, int64_t id,
                                    bool recorded_launch_dir) {
  const auto record = impl->ctx_.records().experiment(id);
  if (!record) {
    throw core::Error::not_found("no experiment " + std::to_string(id) +
                                 " in the store (see `sortie experiments list`)");
  }
  impl->id_ = record->id;
  impl->title_ = record->title;
  if (recorded_launch_dir) impl->launch_dir_ = record->launch_dir;
  return Experiment(std::move(impl));
}

std::vector<int64_t> Experiment::list_ids(const Options& options) {
  Impl impl(options);
  std::vector<int64_t> ids;
  for (const core::ExperimentRecord& record : impl.ctx_.records().experiments(0)) {
    ids.push_back(record.id);
  }
  return ids;
}

int64_t Experiment::id() const { return impl_->recorded_id(); }
const std::string& Experiment::title() const { return impl_->title_; }

std::vector<Executable> Experiment::package(const std::vector<Packageable>& packageables) {
  return xm_impl::package_executables(impl_->ctx_, impl_->launch_dir_, packageables);
}

WorkUnit Experiment::add(const Job& job, const JobArgs& args) {
  return add_sweep(job, {args}).front();
}

std::vector<WorkUnit> Experiment::add_sweep(const Job& job, const std::vector<JobArgs>& units) {
  std::vector<Job> jobs;
  for (const JobArgs& args : units) {
    Job& resolved = jobs.emplace_back(job);
    if (resolved.name.empty()) resolved.name = job.executable.name;
    core::apply_args(resolved, args);
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

std::vector<WorkUnit> Experiment::work_units() { return impl_->refresh(); }

State state_of(const std::vector<WorkUnit>& units) {
  std::vector<State> states;
  for (const WorkUnit& unit : units) states.push_back(unit.state);
  return aggregate(states);
}

State Experiment::state() { return state_of(impl_->refresh()); }

State Experiment::wait_until_complete() {
  for (const std::string& handle : impl_->handles()) {
    if (session::interrupted() != 0) break;  // the caller decides what an interruption means
    session::AppLookup app = session::lookup_app(impl_->ctx_, handle);
    if (!app.status || core::is_terminal(app.status->state) || !app.scheduler) continue;
    session::AppWaiter waiter(*app.scheduler, impl_->ctx_, handle, app.handle.app_id);
    waiter.until_terminal(-1);
  }
  return state();
}

void Experiment::cancel() {
  for (const std::string& handle : impl_->handles()) {
    session::AppLookup app = session::lookup_app(impl_->ctx_, handle);
    if (!app.status || core::is_terminal(app.status->state) || !app.scheduler) continue;
    app.scheduler->cancel(app.handle.app_id);
    impl_->ctx_.store().add_event(handle, "cancel_requested",
                                  "experiment " + std::to_string(impl_->id_) + " cancelled");
  }
}

}  // namespace sortie::xm
