// File: sortie/runner.hpp
//
// The C++ runner API, after TorchX's Runner: run an app (a spec file, a component or a command)
// on a scheduler, then follow it by its handle SCHEDULER://SESSION/APP_ID — status, wait,
// cancel, list, log lines. Apps are recorded in sortie's store, so `sortie status HANDLE` and
// `sortie log HANDLE` work on them from any shell, and the runner works on apps the CLI ran.
// The `sortie` CLI's run, status, describe, cancel, list and log commands are thin clients of it.
// Link Sortie::launch.
//
// Errors are thrown as sortie::Error (sortie/error.hpp, a std::runtime_error) whose what() names
// the handle, file, plugin or option at fault.
#ifndef SORTIE_RUNNER_HPP
#define SORTIE_RUNNER_HPP

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sortie/app_state.hpp>
#include <sortie/app_status.hpp>
#include <sortie/error.hpp>
#include <string>
#include <vector>

namespace sortie::runner {

// The store and plugins are found as the `sortie` CLI finds them: $SORTIE_STATE_DIR (else the XDG
// state dir) and the manifest search path of docs/registry.md.
struct Options {
  std::string session;                   // empty: $SORTIE_SESSION, else "default"
  std::vector<std::string> plugin_dirs;  // non-empty: replaces the manifest search path
  bool quiet = false;                    // no plugin progress on stderr
  bool isolate_plugins = false;          // run plugins in child processes (--isolate-plugins)
};

// What to run: exactly one of spec_file, component or command.
struct AppSpec {
  std::string spec_file;                    // a YAML or JSON app spec (docs/specs.md)
  std::string component;                    // a component (`sortie builtins`), with:
  std::vector<std::string> component_args;  // its arguments, as on the command line
  std::vector<std::string> command;         // a program and its arguments, one role of:
  int replicas = 1;                         // replicas of the command's role
  std::string image;                        // the command role's image (empty: none)
  std::string name;                         // the app's name (empty: the command's program)
  // SORTIE_METRICS_PATTERN of every role, over its own (empty: as the app sets it), so that its
  // log lines are read for measurements (docs/experiments.md XF-35).
  std::string metrics_pattern;
};

// Run options come from `cfg` over the [SCHEDULER] section of .sortieconfig. An unknown
// scheduler or run option is an error that suggests the closest name.
struct RunOptions {
  std::string scheduler = "local_cwd";
  std::map<std::string, std::string> cfg;  // run options, as -cfg k=v
  std::string cfg_source = "cfg";          // how errors name where cfg's values came from
};

struct PlannedRun;  // what Runner::schedule submits (opaque)

// A dry run's result, after TorchX's AppDryRunInfo: what would be submitted, and the means to
// submit it with Runner::schedule (on the same Runner).
struct DryRunInfo {
  std::string scheduler;    // the scheduler's name
  std::string plugin;       // "scheduler 'NAME' (plugin P, LIBRARY)", to name it in messages
  std::string app_json;     // the AppDef (docs/payloads.md P-1)
  std::string cfg_json;     // the resolved run options
  std::string request;      // the scheduler's request as text (its own rendering, else JSON)
  std::string dryrun_json;  // the scheduler's whole sortie.dryrun/1 payload
  std::shared_ptr<PlannedRun> planned;
};

// TorchX's states, the one set the SDK, the core and the runner share (sortie/app_state.hpp).
using ::sortie::AppState;
using ::sortie::is_terminal;
// "SUCCEEDED", "RUNNING", ... as the CLI prints them.
std::string to_string(AppState state);

// Statuses are the SDK's sortie.status/1 model (sortie/app_status.hpp), the one type the host,
// the plugins and the runner share, plus where this one came from.
using ::sortie::ReplicaStatus;
using ::sortie::RoleStatus;

struct AppStatus : ::sortie::AppStatus {
  bool from_store_only = false;  // the store's last record: the scheduler forgot the app, or
  std::string not_refreshed;     // why the scheduler could not be asked, if it could not
};

// An app as recorded when it was run.
struct AppDescription {
  std::string handle;
  std::string app_json;      // the AppDef (docs/payloads.md P-1); empty if run outside this store
  std::string cfg_json;      // the resolved run options
  int64_t submitted_at = 0;  // ns since the epoch; 0 if unknown
  std::optional<AppStatus> status;
};

struct ListOptions {
  std::string scheduler;  // non-empty: only its apps, and also those it lists itself
  bool active_only = false;
  int limit = 0;  // 0: all
  // Called as the live states of apps not terminal on record arrive: (done, of how many).
  std::function<void(size_t done, size_t total)> progress;
};

struct ListedApp {
  std::string handle;
  std::string name;
  std::string state;
  int64_t submitted_at = 0;  // 0 for an app only the scheduler knows
  std::string unverified;    // why the scheduler could not confirm `state`, the recorded one
};

struct AppList {
  std::vector<ListedApp> apps;     // newest first
  std::string scheduler_unlisted;  // why the scheduler could not list its own apps, if it could not
};

enum class Streams { kCombined, kStdout, kStderr };

struct LogOptions {
  std::string role;             // empty: every role
  std::set<uint32_t> replicas;  // empty: every replica
  std::string regex;            // non-empty: only lines matching it (POSIX extended, like grep -E)
  std::optional<std::chrono::system_clock::time_point> since;
  std::optional<std::chrono::system_clock::time_point> until;
  bool should_tail = false;  // keep reading until the app is terminal
  Streams streams = Streams::kCombined;
};

// Why `pattern` is not a valid LogOptions::regex (the POSIX regcomp message, or that its
// repetitions written out pass docs/limits.md L-15, checked before regcomp), or nullopt. The
// runner's own error names the field `regex`; a caller may check first to name its own option.
std::optional<std::string> regex_error(const std::string& pattern);

// An app `Runner::cancel_all` could not cancel, and why.
struct CancelFailure {
  std::string handle;
  Error error;
};

struct LogLine {
  std::string role;
  uint32_t replica = 0;
  bool stderr_stream = false;
  int64_t timestamp_ns = 0;
  std::string text;  // one whole line, with its newline when it had one
};

// What an app's jobs measured (docs/experiments.md, "Measurements"): the values of one key
// reported by one replica, or by one rank of it (torchrun's `[r]:` lines). `index` is a point's
// position among all the series' points.
struct MetricPoint {
  int64_t index = 0;
  int64_t step = 0;
  int64_t at_ns = 0;  // when it was written, ns since the epoch
  double value = 0;
};

struct MetricSeries {
  std::string role;
  uint32_t replica = 0;
  int32_t rank = -1;  // -1: lines of no rank
  std::string key;
  int64_t count = 0;  // points reported
  MetricPoint first, last, min, max;
  // Every point up to docs/limits.md L-24 of them, beyond it evenly spaced ones, then the last.
  std::vector<MetricPoint> points;
};

// A Runner remembers the apps it submitted or looked up, so the calls on one handle ask its
// scheduler for the app's state once: status and describe ask afresh, and cancel, wait and
// log_lines then use what was found (wait follows the app while it is not terminal).
class Runner {
 public:
  static Runner create(const Options& options = {});
  ~Runner();
  Runner(Runner&&) noexcept;
  Runner& operator=(Runner&&) noexcept;

  // Submits the app and records it; returns its handle.
  std::string run(const AppSpec& app, const RunOptions& options = {});
  // The scheduler's request for the app, as text; submits nothing.
  std::string dryrun(const AppSpec& app, const RunOptions& options = {});
  // The whole dry run (images fetched, run options resolved); submits nothing.
  DryRunInfo dryrun_info(const AppSpec& app, const RunOptions& options = {});
  // Submits what dryrun_info planned and records it, once; returns the handle (run = both).
  std::string schedule(const DryRunInfo& info);
  // The AppDef (docs/payloads.md P-1) the spec gives, built as run builds it (a component's
  // arguments parsed, named resources resolved); asks no scheduler and submits nothing.
  std::string app_json(const AppSpec& app);
  // The help of app.component when its component_args ask for it (--help, or -h unless the
  // component has a parameter h), else nullopt.
  std::optional<std::string> component_help(const AppSpec& app);
  // The names registered in a registry group ("sortie.schedulers", "sortie.named_resources",
  // "sortie.components", ...; docs/registry.md), loading no plugin; Error(INVALID_ARGUMENT)
  // for a group that is none of them.
  std::vector<std::string> registered_names(const std::string& group);
  // A named resource resolved (docs/payloads.md P-3 JSON); nullopt for a name not registered.
  std::optional<std::string> named_resource_json(const std::string& name);
  // The current status, asked of the scheduler and recorded; nullopt for an app neither the
  // scheduler nor the store knows.
  std::optional<AppStatus> status(const std::string& handle);
  std::optional<AppDescription> describe(const std::string& handle);
  // Waits until the app is terminal or `timeout` passed (negative: forever); returns the latest
  // status, terminal or not. (In the `sortie` CLI, SIGINT and SIGTERM also end it.)
  AppStatus wait(const std::string& handle,
                 std::chrono::milliseconds timeout = std::chrono::milliseconds(-1));
  // Asks the scheduler to cancel the app and records the request with `reason`; returns at once.
  void cancel(const std::string& handle, const std::string& reason = "runner API");
  // Asks the schedulers to cancel the apps, in one plugin call for the apps of each scheduler
  // that cancels many at once (e.g. one scancel for a Slurm sweep), and returns once they
  // accepted; those that could not be cancelled (unknown, or refused) are returned, in order.
  std::vector<CancelFailure> cancel_all(const std::vector<std::string>& handles,
                                        const std::string& reason = "runner API");
  AppList list(const ListOptions& options = {});
  // Reads the app's log lines in order, handing each batch read to `on_lines` (at least every
  // half second, possibly empty, so a follower can stop); `on_lines` returns false to stop.
  // Returns true when the log ended, false when on_lines stopped it.
  bool log_lines(const std::string& handle, const LogOptions& options,
                 const std::function<bool(const std::vector<LogLine>&)>& on_lines);
  // log_lines gathered into one vector (for an app that is terminal, or with should_tail).
  std::vector<LogLine> log_lines(const std::string& handle, const LogOptions& options = {});
  // Reads the app's new measurements from its logs into the store, then gives its series by
  // role, replica and key (only `key`'s when it is not empty). Error(NOT_FOUND) for an app
  // neither its scheduler nor the store knows.
  std::vector<MetricSeries> metrics(const std::string& handle, const std::string& key = "");

 private:
  class Impl;
  friend struct SessionBinding;
  explicit Runner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sortie::runner

#endif  // SORTIE_RUNNER_HPP
