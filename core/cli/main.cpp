// The `sortie` command line. Global options come before the subcommand; everything after it
// belongs to the subcommand. `sortie --help` reads no file and loads no plugin.
#include <signal.h>
#include <sortie/version.h>

#include <boost/program_options/errors.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sortie/model/error.hpp>
#include <sortie/model/printable.hpp>
#include <sortie/plugin_host/plugin_faults.hpp>
#include <sortie/plugin_host/plugin_isolation.hpp>
#include <sortie/runner/unfinished_calls.hpp>
#include <string>
#include <vector>

#include "commands.hpp"

namespace {

// What `sortie --help` says before its commands and after them.
constexpr const char* kUsageHead =
    R"(usage: sortie [--plugin-dir DIR]... [--session NAME] [--isolate-plugins]
              [--plugin-timeout SECONDS] [--quiet] COMMAND [ARGS]

Launch apps on pluggable schedulers and follow them from any shell.

commands:
)";
constexpr const char* kUsageTail = R"(
global options:
  --plugin-dir DIR  read manifests from DIR only (repeatable; replaces the search path)
  --session NAME    session for new apps (default: $SORTIE_SESSION or "default")
  --isolate-plugins run every plugin in a helper process, so a plugin that crashes, exits,
                    hangs or prints to stdout becomes an error (also SORTIE_ISOLATE_PLUGINS=1)
  --plugin-timeout SECONDS
                    deadline of each call into an isolated plugin (default 120; also
                    SORTIE_PLUGIN_TIMEOUT); wait and log calls get theirs on top; also
                    how long `list` waits for each scheduler's answer (default 10)
  -q, --quiet       print only plugins' warnings and errors, not their progress (image
                    pulls, builds, pushes)
  --version         print the version
  -h, --help        this help; `sortie COMMAND --help` for a command's options
)";

// The one list of commands: what runs each and what `sortie --help` says of it.
struct Command {
  const char* name;
  int (*run)(sortie::session::Session&, const sortie::cli::Args&);
  const char* summary;  // a "\n" continues it on the next line, under its start
};

constexpr Command kCommands[] = {
    {"run", sortie::cli::cmd_run,
     "submit an app: a component, a --spec file or a command after --"},
    {"status", sortie::cli::cmd_status, "state of an app (HANDLE = SCHEDULER://SESSION/APP_ID)"},
    {"describe", sortie::cli::cmd_describe, "definition and state of an app"},
    {"log", sortie::cli::cmd_log, "print an app's logs (HANDLE[/ROLE[/REPLICA]])"},
    {"metrics", sortie::cli::cmd_metrics,
     "what an app's jobs measured: each series (--key KEY), -f to follow"},
    {"list", sortie::cli::cmd_list, "apps submitted from this machine"},
    {"cancel", sortie::cli::cmd_cancel, "cancel an app"},
    {"runopts", sortie::cli::cmd_runopts, "run options of each scheduler"},
    {"plugins", sortie::cli::cmd_plugins,
     "list the plugins and manifests found, show one (loads it), or check\n"
     "them all in helper processes (plugins doctor)"},
    {"resources", sortie::cli::cmd_resources, "named resources (e.g. gpu.small)"},
    {"builtins", sortie::cli::cmd_builtins, "components available to `sortie run`"},
    {"launch", sortie::cli::cmd_launch,
     "run an experiment file: executables, jobs, job groups, work units, sweeps"},
    {"experiments", sortie::cli::cmd_experiments,
     "experiments launched from any shell: list, show ID, cancel ID"},
    {"ui", sortie::cli::cmd_ui, "a live web dashboard of experiments, apps, logs and events"},
    {"config", sortie::cli::cmd_config,
     "trust [FILE]: let a working-directory .sortieconfig or .torchxconfig set run\n"
     "options that run programs or choose credentials"},
};

void print_usage(std::FILE* out) {
  constexpr int kSummaryColumn = 13;
  std::fputs(kUsageHead, out);
  for (const Command& command : kCommands) {
    if (std::strlen(command.name) <= kSummaryColumn - 4) {  // two spaces either side
      std::fprintf(out, "  %-*s", kSummaryColumn - 2, command.name);
    } else {  // too long to share its line
      std::fprintf(out, "  %s\n%*s", command.name, kSummaryColumn, "");
    }
    for (const char* c = command.summary; *c != '\0'; ++c) {
      if (*c == '\n') {
        std::fprintf(out, "\n%*s", kSummaryColumn, "");
      } else {
        std::fputc(*c, out);
      }
    }
    std::fputc('\n', out);
  }
  std::fputs(kUsageTail, out);
}

// A reader that closes stdout early (`sortie launch FILE | head -1`) must not kill the command
// halfway through what it does; the write fails instead and finish_output() reports it. A handler
// rather than SIG_IGN, so that programs the plugins start get the default disposition back.
volatile sig_atomic_t g_broken_pipe = 0;

void survive_closed_stdout() {
  struct sigaction action {};
  action.sa_handler = [](int) { g_broken_pipe = 1; };
  sigemptyset(&action.sa_mask);
  sigaction(SIGPIPE, &action, nullptr);
}

// Flushes stdout; a failed write is said on stderr (the command's exit status stands: what it
// did, it did).
int finish_output(const char* command, int exit_status) {
  errno = 0;
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && std::ferror(stdout) == 0) return exit_status;
  std::fprintf(stderr,
               "sortie %s: some output was lost: writing to stdout failed (%s); the command "
               "itself ran to the end\n",
               command, std::strerror(flushed ? (g_broken_pipe != 0 ? EPIPE : EIO) : errno));
  return exit_status;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "sortie: %s\n(see `sortie --help`)\n",
               sortie::model::printable_message(message).c_str());
  return sortie::cli::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  sortie::session::SessionOptions options;
  options.on_registry_problem = sortie::session::print_registry_problem;
  options.on_builtin_shadowed = sortie::session::print_builtin_shadowed;
  options.on_reconciled = sortie::session::print_reconciled;
  options.on_measurements_note = sortie::session::print_measurements_note;
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string word = argv[i];
    if (word == "-h" || word == "--help") {
      print_usage(stdout);
      return sortie::cli::kExitOk;
    }
    if (word == "--version") {
      std::printf("sortie %s (plugin ABI %d.%d)\n", SORTIE_VERSION, SORTIE_ABI_CURRENT_MAJOR,
                  SORTIE_ABI_CURRENT_MINOR);
      return sortie::cli::kExitOk;
    }
    if (word == "--isolate-plugins") {
      options.isolate_plugins = true;
      continue;
    }
    if (word == "-q" || word == "--quiet") {
      options.quiet = true;
      continue;
    }
    if (word == "--plugin-dir" || word == "--session" || word == "--plugin-timeout") {
      if (i + 1 >= argc) return usage_error("option " + word + " needs a value");
      const char* value = argv[++i];
      if (word == "--plugin-timeout") {
        try {
          options.plugin_timeout = sortie::plugin_host::parse_timeout_seconds(value, word);
        } catch (const sortie::Error& e) {
          return usage_error(e.what());
        }
        continue;
      }
      (word == "--session" ? options.session : options.plugin_dirs.emplace_back()) = value;
      continue;
    }
    return usage_error("unknown global option '" + word + "'");
  }
  if (i >= argc) {
    print_usage(stderr);
    return sortie::cli::kExitUsage;
  }
  const std::string name = argv[i];
  const sortie::cli::Args args(argv + i + 1, argv + argc);
  for (const Command& command : kCommands) {
    if (name != command.name) continue;
    int exit_status = sortie::cli::kExitOk;
    std::optional<sortie::session::Session> ctx;
    try {
      survive_closed_stdout();
      sortie::plugin_host::contain_plugin_crashes(sortie::session::state_dir() + "/plugin-faults");
      ctx.emplace(std::move(options));
      exit_status = finish_output(command.name, command.run(*ctx, args));
    } catch (const boost::program_options::error& e) {
      std::fprintf(stderr, "sortie %s: %s\n(see `sortie %s --help`)\n", command.name,
                   sortie::model::printable_message(e.what()).c_str(), command.name);
      exit_status = sortie::cli::kExitUsage;
    } catch (const sortie::Error& e) {
      std::fprintf(stderr, "sortie %s: error: %s\n", command.name,
                   sortie::model::printable_message(e.what()).c_str());
      exit_status = sortie::cli::exit_status_of(e.status());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "sortie %s: error: %s\n", command.name,
                   sortie::model::printable_message(e.what()).c_str());
      exit_status = sortie::cli::kExitBackend;
    }
    // A plugin call past its deadline still runs: neither the session nor the plugin's statics
    // may be destroyed under it (sortie/runner/unfinished_calls.hpp).
    if (sortie::runner::calls_past_deadline_running() > 0) {
      sortie::runner::leave_process(exit_status);
    }
    return exit_status;
  }
  return usage_error("unknown command '" + name + "'");
}
