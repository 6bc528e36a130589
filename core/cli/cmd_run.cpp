// `sortie run`: build an AppDef from a component, a spec file or a command, submit it, and
// optionally follow it (--wait, --log) until it is terminal.
#include <boost/program_options.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sortie/core/component.hpp>
#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>
#include <sortie/core/secret_env.hpp>
#include <sortie/core/spec_file.hpp>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/session/launcher.hpp>
#include <utility>

#include "commands.hpp"
#include "dryrun_document.hpp"
#include "log_printer.hpp"
#include "run_config.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

constexpr const char* kRunUsage =
    "usage: sortie run [options] COMPONENT [component args...]\n"
    "       sortie run [options] --spec FILE   (or FILE, when it ends in .yaml, .yml or .json)\n"
    "       sortie run [options] -- COMMAND [ARGS...]\n";

struct RunCommandLine {
  Args own;  // run's own options
  std::string component;
  Args rest;  // component args, or the command after --
  bool command_mode = false;
};

// Run's options end at the first word that is not an option (the component) or at "--".
RunCommandLine split_run_args(const Args& args) {
  static const char* const kTakesValue[] = {
      "-s", "--scheduler", "--cfg", "--spec", "--image", "--replicas", "--name", "-o", "--output"};
  RunCommandLine line;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string word = args[i] == "-cfg" ? "--cfg" : args[i];  // TorchX spelling
    if (word == "--") {
      line.command_mode = true;
      line.rest.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      return line;
    }
    if (word.empty() || word[0] != '-') {
      line.component = word;
      line.rest.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      return line;
    }
    line.own.push_back(word);
    for (const char* option : kTakesValue) {
      if (word == option && i + 1 < args.size()) {
        line.own.push_back(args[++i]);
        break;
      }
    }
  }
  return line;
}

core::AppDef app_from_command(const Args& command, const std::string& image, int replicas,
                              const std::string& name) {
  if (command.empty())
    throw core::Error::invalid_argument("nothing after '--': give the command to run");
  core::AppDef app;
  const std::string program = std::filesystem::path(command.front()).filename().string();
  app.name = name.empty() ? program : name;
  core::Role role;
  role.name = program.empty() ? "main" : program;
  role.image = image;
  role.entrypoint = command.front();
  role.args.assign(command.begin() + 1, command.end());
  role.num_replicas = replicas;
  app.roles.push_back(std::move(role));
  core::validate(app);
  return app;
}

// `secrets` are masked wherever they show (secret_env.hpp).
void print_dryrun(const core::AppDef& app, const session::DryRunResult& dry,
                  const std::vector<std::string>& secrets) {
  std::printf("=== APPLICATION ===\n%s\n\n=== SCHEDULER REQUEST ===\n",
              core::mask_secrets(core::to_json(app), secrets).c_str());
  std::printf(
      "%s\n",
      core::mask_secrets(dry.text.empty() ? dry.request_pretty : dry.text, secrets).c_str());
}

// `sortie run FILE` for an existing .yaml/.yml/.json file that names no component: as --spec.
bool names_spec_file(session::Session& ctx, const std::string& word) {
  const std::string extension = std::filesystem::path(word).extension().string();
  if (extension != ".yaml" && extension != ".yml" && extension != ".json") return false;
  std::error_code error;
  return std::filesystem::is_regular_file(word, error) &&
         ctx.registry().find(registry::Group::kComponents, word) == nullptr;
}

int exit_status_for(const core::AppStatus& status) {
  return status.state == core::AppState::kSucceeded ? kExitOk : kExitAppNotSucceeded;
}

}  // namespace

int cmd_run(session::Session& ctx, const Args& args) {
  RunCommandLine line = split_run_args(args);
  po::options_description desc("run options");
  std::string scheduler_name;
  std::vector<std::string> cfgs;
  std::string spec, image, name;
  std::string output;
  int replicas = 1;
  desc.add_options()("help,h", "show this help")(
      "scheduler,s", po::value(&scheduler_name),
      "scheduler to submit to (see `sortie plugins list`)")(
      "cfg", po::value(&cfgs)->composing(), "run options k=v,k2=v2 (also -cfg; repeatable)")(
      "dryrun", "print the app and the scheduler's request; submit nothing")(
      "show-secrets",
      "with --dryrun: print the values of env vars named like *TOKEN*, *SECRET*, *PASSWORD* "
      "(masked otherwise)")(
      "output,o", po::value(&output),
      "with --dryrun: print only the request, as json or yaml, for the backend's own tools")(
      "wait", "wait until the app is terminal; exit 0 only if it succeeded")(
      "log", "print the app's output (ROLE/REPLICA prefixed) while waiting; implies --wait")(
      "spec", po::value(&spec), "read the app from a YAML or JSON spec file")(
      "image", po::value(&image), "with -- COMMAND: the role's image")(
      "replicas", po::value(&replicas), "with -- COMMAND: number of replicas (default 1)")(
      "name", po::value(&name), "with -- COMMAND: the app's name (default: the program's)");
  po::variables_map vm;
  po::store(po::command_line_parser(line.own).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    std::cout << kRunUsage << '\n' << desc;
    return kExitOk;
  }

  if (spec.empty() && !line.component.empty() && names_spec_file(ctx, line.component)) {
    if (!line.rest.empty()) {
      throw core::Error::invalid_argument("sortie run " + line.component +
                                          ": a spec file takes no arguments, got '" +
                                          line.rest.front() + "'");
    }
    spec = std::exchange(line.component, "");
  }
  const int sources =
      (spec.empty() ? 0 : 1) + (line.component.empty() ? 0 : 1) + (line.command_mode ? 1 : 0);
  if (sources != 1) {
    throw core::Error::invalid_argument(
        sources == 0 ? "nothing to run: give a component (see `sortie builtins`), "
                       "--spec FILE, or -- COMMAND"
                     : "give only one of: a component, --spec FILE, -- COMMAND");
  }
  if (!output.empty() && vm.count("dryrun") == 0) {
    throw core::Error::invalid_argument("-o/--output applies only with --dryrun");
  }
  if (vm.count("show-secrets") != 0 && vm.count("dryrun") == 0) {
    throw core::Error::invalid_argument("--show-secrets applies only with --dryrun");
  }
  const DocumentFormat document_format =
      output.empty() ? DocumentFormat::kJson : document_format_from_string(output);
  if (!line.command_mode && (vm.count("image") + vm.count("replicas") + vm.count("name")) > 0) {
    throw core::Error::invalid_argument(
        "--image, --replicas and --name apply only to a command after --");
  }

  const core::ConfigFile& config = checked_run_config(ctx);
  if (scheduler_name.empty()) {
    if (auto configured = configured_scheduler(config)) scheduler_name = configured->value;
  }
  if (scheduler_name.empty()) scheduler_name = SORTIE_DEFAULT_SCHEDULER;

  session::LaunchPlan plan;
  plan.scheduler = scheduler_name;
  plan.session = ctx.options().session;
  if (!spec.empty()) {
    plan.app = core::load_app_spec(spec, ctx.resource_lookup(), ctx.resource_names());
  } else if (line.command_mode) {
    plan.app = app_from_command(line.rest, image, replicas, name);
  } else {
    const registry::Entry* entry =
        ctx.registry().find(registry::Group::kComponents, line.component);
    if (entry == nullptr) {
      std::string message = "unknown component '" + line.component + "'";
      auto close = ctx.registry().close_names(registry::Group::kComponents, line.component);
      if (!close.empty()) message += " (did you mean '" + close.front() + "'?)";
      message += "; see `sortie builtins`";
      if (std::error_code error; std::filesystem::exists(line.component, error)) {
        message += "; to run the spec file " + line.component + ", use `sortie run --spec " +
                   line.component + "`";
      }
      throw core::Error::not_found(message);
    }
    const core::Component component = core::parse_component(entry->name, entry->description,
                                                            entry->data_json, entry->manifest_path);
    if (core::asks_for_help(component, line.rest)) {
      std::fputs(core::component_help(component).c_str(), stdout);
      return kExitOk;
    }
    plan.app =
        core::instantiate(component, line.rest, config.section("component:" + component.name),
                          ctx.resource_lookup(), ctx.resource_names());
  }

  for (const auto& [key, value] : config.section(scheduler_name)) {
    plan.raw_cfg[key] = core::RawOpt{value.value, value.origin, value.trusted};
  }
  for (const auto& text : cfgs) {
    for (const auto& [key, value] : core::split_cfg(text)) {
      plan.raw_cfg[key] = core::RawOpt{value, "-cfg"};
    }
  }

  auto scheduler = ctx.scheduler(scheduler_name, plan.session);
  session::Launcher launcher(ctx, *scheduler);
  const session::DryRunResult dry = launcher.dryrun(plan);
  const std::vector<std::string> secrets = vm.count("show-secrets") != 0
                                               ? std::vector<std::string>{}
                                               : core::secret_env_values(plan.app);
  if (!output.empty()) {
    std::fputs(
        core::mask_secrets(
            render_dryrun_document(dry.dryrun_json, document_format, scheduler->context()), secrets)
            .c_str(),
        stdout);
    return kExitOk;
  }
  if (vm.count("dryrun") != 0) {
    print_dryrun(plan.app, dry, secrets);
    return kExitOk;
  }

  const bool follow_logs = vm.count("log") != 0;
  const bool wait = follow_logs || vm.count("wait") != 0;
  if (wait) session::install_interrupt_handlers();
  const std::string handle = launcher.schedule(plan, dry);
  std::printf("%s\n", handle.c_str());
  std::fflush(stdout);
  if (!wait) return kExitOk;

  const std::string app_id = core::parse_app_handle(handle).app_id;
  session::AppWaiter waiter(*scheduler, ctx.store(), handle, app_id);
  std::optional<core::AppStatus> final_status;
  if (follow_logs) {
    runner::LogOptions options;
    options.should_tail = true;
    try {
      LogPrinter printer(true);
      runner::SessionBinding::over(ctx).log_lines(
          handle, options, [&](const auto& lines) { return printer.print(lines); });
    } catch (const core::Error& e) {
      if (e.status() != SORTIE_UNIMPLEMENTED) throw;
      std::fprintf(stderr, "sortie run: %s; waiting without logs\n", e.what());
    }
  }
  if (session::interrupted() == 0) final_status = waiter.until_terminal(-1);
  if (!final_status) {
    std::fprintf(stderr, "sortie run: interrupted by signal %d: cancelling %s\n",
                 session::interrupted(), handle.c_str());
    scheduler->cancel(app_id);
    ctx.store().add_event(handle, "cancel_requested", "run --wait interrupted");
    // The app is cancelled whatever happens next; record its final state if it comes quickly.
    final_status = waiter.step(30'000);
    std::fprintf(stderr, "sortie run: %s is %s\n", handle.c_str(),
                 core::to_string(final_status->state));
    return kExitInterrupted;
  }
  std::fprintf(stderr, "sortie run: %s %s%s%s\n", handle.c_str(),
               core::to_string(final_status->state), final_status->msg.empty() ? "" : ": ",
               final_status->msg.c_str());
  return exit_status_for(*final_status);
}

}  // namespace sortie::cli
