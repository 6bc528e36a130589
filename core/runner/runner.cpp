// Runner: creation, run and dryrun, and what acts on one app (status, describe, wait, cancel).
#include <cstdio>
#include <filesystem>
#include <map>
#include <sortie/model/component.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/spec_file.hpp>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/app_cancel.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/session/launcher.hpp>
#include <sortie/session/measurement_collector.hpp>

#include "runner_impl.hpp"

namespace sortie::runner {

namespace {

AppDef app_from_command(const AppSpec& spec) {
  AppDef app;
  const std::string program = std::filesystem::path(spec.command.front()).filename().string();
  app.name = spec.name.empty() ? program : spec.name;
  Role role;
  role.name = program.empty() ? "main" : program;
  role.image = spec.image;
  role.entrypoint = spec.command.front();
  role.args.assign(spec.command.begin() + 1, spec.command.end());
  role.num_replicas = spec.replicas;
  app.roles.push_back(std::move(role));
  model::validate(app);
  return app;
}

model::Component component_of(session::Session& session, const AppSpec& spec) {
  const registry::Entry* entry =
      session.registry().find(registry::Group::kComponents, spec.component);
  if (entry == nullptr) {
    std::string message = "unknown component '" + spec.component + "'";
    auto close = session.registry().close_names(registry::Group::kComponents, spec.component);
    if (!close.empty()) message += " (did you mean '" + close.front() + "'?)";
    message += "; see `sortie builtins`";
    if (std::error_code error; std::filesystem::exists(spec.component, error)) {
      message += "; to run the spec file " + spec.component + ", use `sortie run --spec " +
                 spec.component + "`";
    }
    throw Error::not_found(message);
  }
  return model::parse_component(entry->name, entry->description, entry->data_json,
                                entry->manifest_path);
}

AppDef app_from_component(session::Session& session, const AppSpec& spec) {
  const model::Component component = component_of(session, spec);
  return model::instantiate(component, spec.component_args,
                            session.config().section("component:" + component.name),
                            session.resource_lookup(), session.resource_names());
}

session::LaunchPlan plan_for(session::Session& session, const AppSpec& spec,
                             const RunOptions& options) {
  const int sources = (spec.spec_file.empty() ? 0 : 1) + (spec.component.empty() ? 0 : 1) +
                      (spec.command.empty() ? 0 : 1);
  if (sources != 1) {
    throw Error::invalid_argument(
        "give exactly one of an AppSpec's spec_file, component and command");
  }
  session::LaunchPlan plan;
  plan.scheduler = options.scheduler;
  plan.session = session.options().session;
  if (!spec.spec_file.empty()) {
    plan.app =
        model::load_app_spec(spec.spec_file, session.resource_lookup(), session.resource_names());
  } else if (!spec.component.empty()) {
    plan.app = app_from_component(session, spec);
  } else {
    plan.app = app_from_command(spec);
  }
  if (!spec.metrics_pattern.empty()) {
    for (Role& role : plan.app.roles) {
      set_value(role.env, session::kMetricsPatternVariable, spec.metrics_pattern);
    }
  }
  for (const auto& [key, value] : session.config().section(options.scheduler)) {
    plan.raw_cfg[key] = model::RawOpt{value.value, value.origin, value.trusted};
  }
  for (const auto& [key, value] : options.cfg) {
    plan.raw_cfg[key] = model::RawOpt{value, options.cfg_source};
  }
  return plan;
}

}  // namespace

Error unknown_app(const std::string& handle) {
  return Error::not_found("app " + handle + " is unknown to its scheduler and to the store");
}

Runner::Runner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Runner::~Runner() = default;
Runner::Runner(Runner&&) noexcept = default;
Runner& Runner::operator=(Runner&&) noexcept = default;

Runner Runner::create(const Options& options) {
  return Runner(std::make_unique<Impl>(session::SessionOptions{
      options.plugin_dirs, options.session, options.isolate_plugins, options.quiet, std::nullopt,
      session::print_registry_problem, session::print_builtin_shadowed, session::print_reconciled,
      session::print_measurements_note}));
}

Runner SessionBinding::over(session::Session& session) {
  return Runner(std::make_unique<Runner::Impl>(session));
}

session::AppLookup& Runner::Impl::look_up(const std::string& handle) {
  session::AppLookup app = session::lookup_app(session_, handle);
  const std::string key = app.handle.str();
  return apps_.insert_or_assign(key, std::move(app)).first->second;
}

void Runner::Impl::remember_submitted(const std::string& handle,
                                      std::unique_ptr<plugin_host::SchedulerClient> scheduler) {
  session::AppLookup app;
  app.handle = model::parse_app_handle(handle);
  app.scheduler = std::move(scheduler);
  app.status = session_.records().last_status(handle);
  apps_.insert_or_assign(handle, std::move(app));
}

session::AppLookup& Runner::Impl::known_app(const std::string& handle) {
  const auto found = apps_.find(model::parse_app_handle(handle).str());
  if (found != apps_.end() && found->second.status) return found->second;
  return look_up(handle);
}

std::string Runner::run(const AppSpec& app, const RunOptions& options) {
  return schedule(dryrun_info(app, options));
}

std::string Runner::dryrun(const AppSpec& app, const RunOptions& options) {
  return dryrun_info(app, options).request;
}

DryRunInfo Runner::dryrun_info(const AppSpec& app, const RunOptions& options) {
  session::Session& session = impl_->session();
  auto planned = std::make_shared<PlannedRun>();
  planned->plan = plan_for(session, app, options);
  planned->scheduler = session.scheduler(planned->plan.scheduler, planned->plan.session);
  planned->dry = session::Launcher(session, *planned->scheduler).dryrun(planned->plan);
  const session::DryRunResult& dry = planned->dry;
  DryRunInfo info{planned->plan.scheduler,
                  planned->scheduler->context(),
                  dry.app_json,
                  dry.cfg_json,
                  dry.text.empty() ? dry.request_pretty : dry.text,
                  dry.dryrun_json,
                  planned};
  return info;
}

std::string Runner::schedule(const DryRunInfo& info) {
  if (!info.planned) {
    throw Error::invalid_argument(
        "schedule: the DryRunInfo holds no plan; make it with "
        "Runner::dryrun_info");
  }
  PlannedRun& planned = *info.planned;
  if (!planned.scheduler) {
    throw Error::invalid_argument(
        "schedule: this DryRunInfo was scheduled already; make another with dryrun_info");
  }
  const std::string handle =
      session::Launcher(impl_->session(), *planned.scheduler).schedule(planned.plan, planned.dry);
  impl_->remember_submitted(handle, std::move(planned.scheduler));
  return handle;
}

std::string Runner::app_json(const AppSpec& app) {
  return write_appdef(plan_for(impl_->session(), app, {}).app);
}

std::optional<std::string> Runner::component_help(const AppSpec& app) {
  if (app.component.empty()) return std::nullopt;
  const model::Component component = component_of(impl_->session(), app);
  if (!model::asks_for_help(component, app.component_args)) return std::nullopt;
  return model::component_help(component);
}

std::vector<std::string> Runner::registered_names(const std::string& group_name) {
  const auto group = registry::group_from_string(group_name);
  if (!group) {
    throw Error::invalid_argument("no registry group '" + group_name +
                                  "'; groups read sortie.schedulers, sortie.components, ...");
  }
  std::vector<std::string> names;
  for (const auto* entry : impl_->session().registry().entries(*group)) {
    names.push_back(entry->name);
  }
  return names;
}

std::optional<std::string> Runner::named_resource_json(const std::string& name) {
  auto resource = impl_->session().named_resource(name);
  if (!resource) return std::nullopt;
  return write_resource(*resource);
}

std::optional<AppStatus> Runner::status(const std::string& handle) {
  const session::AppLookup& app = impl_->look_up(handle);
  if (!app.status) return std::nullopt;
  return public_status(app);
}

std::optional<AppDescription> Runner::describe(const std::string& handle) {
  session::Session& session = impl_->session();
  const session::AppLookup& app = impl_->look_up(handle);
  const auto record = session.records().get(app.handle.str());
  if (!app.status && !record) return std::nullopt;
  AppDescription description;
  description.handle = app.handle.str();
  if (record) {
    description.app_json = record->appdef_json;
    description.cfg_json = record->cfg_json.empty() ? "{}" : record->cfg_json;
    description.submitted_at = record->submitted_at;
  }
  if (app.status) description.status = public_status(app);
  return description;
}

AppStatus Runner::wait(const std::string& handle, std::chrono::milliseconds timeout) {
  session::Session& session = impl_->session();
  session::AppLookup& app = impl_->known_app(handle);
  if (!app.status) throw unknown_app(app.handle.str());
  if (model::is_terminal(app.status->state)) {
    return public_status(app);
  }
  session::AppWaiter waiter(app.loaded_scheduler(), session, app.handle.str(), app.handle.app_id);
  waiter.until_terminal(timeout.count());
  if (waiter.last()) {
    app.status = waiter.last();
    app.from_store_only = false;
  }
  return public_status(app);
}

void Runner::cancel(const std::string& handle, const std::string& reason) {
  const std::vector<CancelFailure> failures = cancel_all({handle}, reason);
  if (!failures.empty()) throw failures.front().error;
}

std::vector<CancelFailure> Runner::cancel_all(const std::vector<std::string>& handles,
                                              const std::string& reason) {
  std::vector<CancelFailure> failures;
  // The apps of each scheduler instance (scheduler and session), in the order first met.
  struct SchedulerApps {
    plugin_host::SchedulerClient* scheduler = nullptr;
    std::vector<session::AppToCancel> apps;
  };
  std::vector<std::string> order;
  std::map<std::string, SchedulerApps> groups;
  for (const std::string& handle : handles) {
    try {
      const session::AppLookup& app = impl_->known_app(handle);
      if (!app.status) throw unknown_app(app.handle.str());
      const std::string key = app.handle.scheduler + "://" + app.handle.session;
      SchedulerApps& group = groups[key];
      if (group.scheduler == nullptr) {
        group.scheduler = &app.loaded_scheduler();
        order.push_back(key);
      }
      group.apps.push_back({app.handle.str(), app.handle.app_id});
    } catch (const Error& error) {
      failures.push_back({handle, error});
    }
  }
  for (const std::string& key : order) {
    const SchedulerApps& group = groups[key];
    for (session::CancelFailure& failure :
         session::cancel_apps(*group.scheduler, impl_->session(), group.apps, reason)) {
      failures.push_back({failure.handle, failure.error});
    }
  }
  return failures;
}

}  // namespace sortie::runner
