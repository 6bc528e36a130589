// `sortie run`: a component, a spec file or a command, submitted and optionally followed (--wait,
// --log) until it is terminal. A thin client of the runner API.
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/printable.hpp>
#include <sortie/model/runopts.hpp>
#include <sortie/model/secret_env.hpp>
#include <sortie/runner/session_binding.hpp>
#include <sortie/session/app_waiter.hpp>
#include <utility>

#include "commands.hpp"
#include "dryrun_document.hpp"
#include "log_printer.hpp"
#include "metrics_option.hpp"
#include "python_exec.hpp"
#include "run_config.hpp"

namespace po = boost::program_options;

namespace sortie::cli {

namespace {

constexpr const char* kRunUsage =
    "usage: sortie run [options] COMPONENT [component args...]\n"
    "       sortie run [options] FILE.py:FUNCTION [function args...]   (a TorchX component)\n"
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
  static const char* const kTakesValue[] = {"-s",       "--scheduler", "--cfg",    "--spec",
                                            "--image",  "--replicas",  "--name",   "-o",
                                            "--output", "--timeout",   "--metrics"};
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

// `secrets` are masked wherever they show (secret_env.hpp).
void print_dryrun(const runner::DryRunInfo& dry, const std::vector<std::string>& secrets) {
  std::printf("=== APPLICATION ===\n%s\n\n=== SCHEDULER REQUEST ===\n",
              model::mask_secrets(dry.app_json, secrets).c_str());
  std::printf("%s\n", model::mask_secrets(dry.request, secrets).c_str());
}

// `sortie run FILE` for an existing .yaml/.yml/.json file that names no component: as --spec.
bool names_spec_file(session::Session& ctx, const std::string& word) {
  const std::string extension = std::filesystem::path(word).extension().string();
  if (extension != ".yaml" && extension != ".yml" && extension != ".json") return false;
  std::error_code error;
  return std::filesystem::is_regular_file(word, error) &&
         ctx.registry().find(registry::Group::kComponents, word) == nullptr;
}

// TorchX's local schedulers are those whose names start with "local" (local_cwd, local_dir,
// local_docker): their apps run on this machine, so a terminal follows them by default.
bool is_local_scheduler(const std::string& scheduler) { return scheduler.starts_with("local"); }

int exit_status_for(const runner::AppStatus& status) {
  return status.state == runner::AppState::kSucceeded ? kExitOk : kExitAppNotSucceeded;
}

// Waits at most `timeout_s` for the app `sortie run --wait` submitted, printing its log lines
// with --log; on SIGINT or SIGTERM, cancels it. Running out leaves the app running and exits 3.
int follow(runner::Runner& runner, const std::string& handle, bool follow_logs, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
  const auto time_left = [&] {
    return std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now()),
                    std::chrono::milliseconds(0));
  };
  if (follow_logs) {
    runner::LogOptions options;
    options.should_tail = true;
    try {
      LogPrinter printer(true);
      // log_lines hands over a batch (maybe empty) at least every half second.
      runner.log_lines(handle, options, [&](const auto& lines) {
        return printer.print(lines) && time_left().count() > 0;
      });
    } catch (const Error& e) {
      if (e.status() != SORTIE_UNIMPLEMENTED) throw;
      std::fprintf(stderr, "sortie run: %s; waiting without logs\n",
                   model::printable_message(e.what()).c_str());
    }
  }
  runner::AppStatus last;
  if (session::interrupted() == 0) last = runner.wait(handle, time_left());
  if (const int signal = session::interrupted(); signal != 0) {
    std::fprintf(stderr, "sortie run: interrupted by signal %d: cancelling %s\n", signal,
                 model::printable(handle).c_str());
    runner.cancel(handle, "run --wait interrupted");
    // The app is cancelled whatever happens next; record its final state if it comes quickly
    // (a second signal stops this wait).
    session::clear_interrupted();
    last = runner.wait(handle, std::chrono::seconds(30));
    std::fprintf(stderr, "sortie run: %s is %s\n", model::printable(handle).c_str(),
                 runner::to_string(last.state).c_str());
    return kExitInterrupted;
  }
  // A wait with no time left (--log spent it) asks the scheduler nothing.
  if (!runner::is_terminal(last.state)) last = runner.status(handle).value_or(last);
  if (!runner::is_terminal(last.state)) {
    std::fprintf(stderr,
                 "sortie run: %s is still %s after --timeout %g s; it keeps running (`sortie "
                 "cancel %s` stops it)\n",
                 model::printable(handle).c_str(), runner::to_string(last.state).c_str(), timeout_s,
                 model::printable(handle).c_str());
    return kExitBackend;
  }
  std::fprintf(stderr, "sortie run: %s %s%s%s\n", model::printable(handle).c_str(),
               runner::to_string(last.state).c_str(), last.msg.empty() ? "" : ": ",
               model::printable_message(last.msg).c_str());
  return exit_status_for(last);
}

}  // namespace

int cmd_run(session::Session& ctx, const Args& args) {
  RunCommandLine line = split_run_args(args);
  po::options_description desc("run options");
  std::string scheduler_name;
  std::vector<std::string> cfgs;
  std::string spec, image, name;
  std::string output;
  std::string metrics_pattern;
  int replicas = 1;
  double timeout_s = kDefaultWaitForAppsS;
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
      "detach",
      "print the handle and return at once, even on a local scheduler with a terminal on stdout "
      "(which implies --log otherwise)")(
      "timeout", po::value(&timeout_s),
      "with --wait or --log: seconds to wait at most (default 86400, a day); running out "
      "leaves the app running and exits 3")("spec", po::value(&spec),
                                            "read the app from a YAML or JSON spec file")(
      "image", po::value(&image), "with -- COMMAND: the role's image")(
      "replicas", po::value(&replicas), "with -- COMMAND: number of replicas (default 1)")(
      "name", po::value(&name), "with -- COMMAND: the app's name (default: the program's)");
  add_metrics_option(desc, metrics_pattern);
  po::variables_map vm;
  po::store(po::command_line_parser(line.own).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help") != 0) {
    std::cout << kRunUsage << '\n' << desc;
    return kExitOk;
  }

  const model::ConfigFile& config = checked_run_config(ctx);
  if (line.component.empty() && spec.empty() && !line.command_mode) {
    if (auto configured = configured_component(ctx, config)) line.component = configured->value;
  }
  if (names_component_file(line.component)) {
    // The function's AppDef is made in Python, then run by `sortie run OWN... --spec`.
    std::vector<std::string> words = {"-m", "sortie.components.file_component",
                                      std::filesystem::read_symlink("/proc/self/exe").string(),
                                      line.component, std::to_string(line.own.size())};
    words.insert(words.end(), line.own.begin(), line.own.end());
    words.insert(words.end(), line.rest.begin(), line.rest.end());
    exec_python(ctx, words);
  }
  if (spec.empty() && !line.component.empty() && names_spec_file(ctx, line.component)) {
    if (!line.rest.empty()) {
      throw Error::invalid_argument("sortie run " + line.component +
                                    ": a spec file takes no arguments, got '" + line.rest.front() +
                                    "'");
    }
    spec = std::exchange(line.component, "");
  }
  const int sources =
      (spec.empty() ? 0 : 1) + (line.component.empty() ? 0 : 1) + (line.command_mode ? 1 : 0);
  if (sources != 1) {
    throw Error::invalid_argument(sources == 0
                                      ? "nothing to run: give a component (see `sortie builtins`), "
                                        "--spec FILE, or -- COMMAND (or set [cli:run] component "
                                        "in .sortieconfig or .torchxconfig)"
                                      : "give only one of: a component, --spec FILE, -- COMMAND");
  }
  if (!output.empty() && vm.count("dryrun") == 0) {
    throw Error::invalid_argument("-o/--output applies only with --dryrun");
  }
  if (vm.count("show-secrets") != 0 && vm.count("dryrun") == 0) {
    throw Error::invalid_argument("--show-secrets applies only with --dryrun");
  }
  const DocumentFormat document_format =
      output.empty() ? DocumentFormat::kJson : document_format_from_string(output);
  if (!line.command_mode && (vm.count("image") + vm.count("replicas") + vm.count("name")) > 0) {
    throw Error::invalid_argument(
        "--image, --replicas and --name apply only to a command after --");
  }

  if (scheduler_name.empty()) {
    if (auto configured = configured_scheduler(config)) scheduler_name = configured->value;
  }
  if (scheduler_name.empty()) scheduler_name = SORTIE_DEFAULT_SCHEDULER;

  runner::AppSpec app;
  app.spec_file = spec;
  if (line.command_mode) {
    if (line.rest.empty()) {
      throw Error::invalid_argument("nothing after '--': give the command to run");
    }
    app.command = line.rest;
    app.image = image;
    app.replicas = replicas;
    app.name = name;
  } else {
    app.component = line.component;
    app.component_args = line.rest;
  }
  app.metrics_pattern = metrics_pattern;
  warn_shell_metrics_variables("sortie run");
  runner::RunOptions options;
  options.scheduler = scheduler_name;
  options.cfg_source = "-cfg";
  for (const auto& text : cfgs) {
    for (auto& [key, value] : model::split_cfg(text)) options.cfg[key] = std::move(value);
  }

  runner::Runner runner = runner::SessionBinding::over(ctx);
  if (auto help = runner.component_help(app)) {
    std::fputs(help->c_str(), stdout);
    return kExitOk;
  }
  const runner::DryRunInfo dry = runner.dryrun_info(app, options);
  const std::vector<std::string> secrets =
      vm.count("show-secrets") != 0
          ? std::vector<std::string>{}
          : model::secret_env_values(model::appdef_from_json(dry.app_json, "the dry run"));
  if (!output.empty()) {
    std::fputs(model::mask_secrets(
                   render_dryrun_document(dry.dryrun_json, document_format, dry.plugin), secrets)
                   .c_str(),
               stdout);
    return kExitOk;
  }
  if (vm.count("dryrun") != 0) {
    print_dryrun(dry, secrets);
    return kExitOk;
  }

  bool follow_logs = vm.count("log") != 0;
  bool wait = follow_logs || vm.count("wait") != 0;
  const bool detach = vm.count("detach") != 0;
  if (detach && wait) {
    throw Error::invalid_argument(
        "--detach returns at once; it cannot be given with --wait or --log");
  }
  if (vm.count("timeout") != 0 && !wait) {
    throw Error::invalid_argument(
        "--timeout bounds the wait of --wait or --log; add one of them, or drop --timeout");
  }
  // As `torchx run` on a local scheduler, a terminal sees the app through; a captured stdout
  // (`handle=$(sortie run ...)`) gets the handle at once.
  if (!detach && !wait && is_local_scheduler(scheduler_name) && ::isatty(STDOUT_FILENO) == 1) {
    wait = follow_logs = true;
  }
  if (timeout_s < 0) throw Error::invalid_argument("--timeout must be 0 or more seconds");
  if (wait) session::install_interrupt_handlers();
  const std::string handle = runner.schedule(dry);
  std::printf("%s\n", handle.c_str());
  std::fflush(stdout);
  return wait ? follow(runner, handle, follow_logs, timeout_s) : kExitOk;
}

}  // namespace sortie::cli
