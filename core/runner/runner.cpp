// Runner: creation, run and dryrun, and what acts on one app (status, describe, wait, cancel).
#include <cstdio>
#include <filesystem>
#include <sortie/core/component.hpp>
#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>
#include <sortie/core/spec_file.hpp>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/session/launcher.hpp>

#include "runner_impl.hpp"

namespace sortie::runner {

namespace {

void print_registry_problem(const registry::Problem& problem) {
  std::fprintf(stderr, "sortie: warning: skipped manifest %s: %s\n", problem.manifest_path.c_str(),
               problem.message.c_str());
}

void print_reconciled(const std::string& settled) {
  std::fprintf(stderr, "sortie: reconciled %s\n", settled.c_str());
}

core::AppDef app_from_command(const AppSpec& spec) {
  core::AppDef app;
  const std::string program = std::filesystem::path(spec.command.front()).filename().string();
  app.name = program;
  core::Role role;
  role.name = program.empty() ? "main" : program;
  role.entrypoint = spec.command.front();
  role.args.assign(spec.command.begin() + 1, spec.command.end());
  role.num_replicas = spec.replicas;
  app.roles.push_back(std::move(role));
  core::validate(app);
  return app;
}

core::AppDef app_from_component(session::Session& session, const AppSpec& spec) {
  const registry::Entry* entry =
      session.registry().find(registry::Group::kComponents, spec.component);
  if (entry == nullptr) {
    throw core::Error::not_found("unknown component '" + spec.component +
                                 "'; see `sortie builtins`");
  }
  const core::Component component = core::parse_component(entry->name, entry->description,
                                                          entry->data_json, entry->manifest_path);
  return core::instantiate(component, spec.component_args,
                           session.config().section("component:" + component.name),
                           session.resource_lookup(), session.resource_names());
}

session::LaunchPlan plan_for(session::Session& session, const AppSpec& spec,
                             const RunOptions& options) {
  const int sources = (spec.spec_file.empty() ? 0 : 1) + (spec.component.empty() ? 0 : 1) +
                      (spec.command.empty() ? 0 : 1);
  if (sources != 1) {
    throw core::Error::invalid_argument(
        "give exactly one of an AppSpec's spec_file, component and command");
  }
  session::LaunchPlan plan;
  plan.scheduler = options.scheduler;
  plan.session = session.options().session;
  if (!spec.spec_file.empty()) {
    plan.app =
        core::load_app_spec(spec.spec_file, session.resource_lookup(), session.resource_names());
  } else if (!spec.component.empty()) {
    plan.app = app_from_component(session, spec);
  } else {
    plan.app = app_from_command(spec);
  }
  for (const auto& [key, value] : session.config().section(options.scheduler)) {
    plan.raw_cfg[key] = core::RawOpt{value.value, value.origin};
  }
  for (const auto& [key, value] : options.cfg) plan.raw_cfg[key] = core::RawOpt{value, "cfg"};
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
      print_registry_problem, print_reconciled}));
}

Runner SessionBinding::over(session::Session& session) {
  return Runner(std::make_unique<Runner::Impl>(session));
}

std::string Runner::run(const AppSpec& app, const RunOptions& options) {
  session::Session& session = impl_->session();
  const session::LaunchPlan plan = plan_for(session, app, options);
  auto scheduler = session.scheduler(plan.scheduler, plan.session);
  session::Launcher launcher(session, *scheduler);
  return launcher.schedule(plan, launcher.dryrun(plan));
}

std::string Runner::dryrun(const AppSpec& app, const RunOptions& options) {
  session::Session& session = impl_->session();
  const session::LaunchPlan plan = plan_for(session, app, options);
  auto scheduler = session.scheduler(plan.scheduler, plan.session);
  const session::DryRunResult dry = session::Launcher(session, *scheduler).dryrun(plan);
  return dry.text.empty() ? dry.request_pretty : dry.text;
}

std::optional<AppStatus> Runner::status(const std::string& handle) {
  const session::AppLookup app = session::lookup_app(impl_->session(), handle);
  if (!app.status) return std::nullopt;
  return public_status(app);
}

std::optional<AppDescription> Runner::describe(const std::string& handle) {
  session::Session& session = impl_->session();
  const session::AppLookup app = session::lookup_app(session, handle);
  const auto record = session.store().get(app.handle.str());
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
  const session::AppLookup app = session::lookup_app(session, handle);
  if (!app.status) throw unknown_app(app.handle.str());
  if (core::is_terminal(app.status->state)) {
    return public_status(app);
  }
  session::AppWaiter waiter(app.loaded_scheduler(), session.store(), app.handle.str(),
                            app.handle.app_id);
  waiter.until_terminal(timeout.count());
  return public_status(waiter.last() ? *waiter.last() : *app.status, false);
}

void Runner::cancel(const std::string& handle, const std::string& reason) {
  session::Session& session = impl_->session();
  const session::AppLookup app = session::lookup_app(session, handle);
  if (!app.status) throw unknown_app(app.handle.str());
  app.loaded_scheduler().cancel(app.handle.app_id);
  if (session.store().get(app.handle.str())) {
    session.store().add_event(app.handle.str(), "cancel_requested", reason);
  }
}

}  // namespace sortie::runner
