// File: sortie/xm.hpp
//
// The C++ launch API, after DeepMind's XManager: an Experiment holds work units (ids from 1),
// each running a Job or a JobGroup (a gang: started together, cancelled together); jobs run
// packaged executables (Binary, BazelBinary, Container, BazelContainer, PythonContainer,
// Dockerfile) on an Executor (local, vertex, kubernetes, ... whatever the installed plugins
// provide). Everything is recorded in sortie's store, so `sortie experiments show ID` and
// `sortie experiments cancel ID` work from any shell. Link Sortie::launch.
//
// Arguments follow XManager's SequentialArgs rules: keyword {"batch_size": 16} becomes
// --batch_size=16, true/false become --flag/--noflag, a null value is omitted, a list repeats the
// flag; positional items are passed as they are. Nothing is shell-quoted: jobs are exec'd.
//
// Errors are thrown as std::runtime_error whose what() names the file, field, plugin or job at
// fault and what to do.
#ifndef SORTIE_XM_HPP
#define SORTIE_XM_HPP

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace sortie::xm {

// One argument value. Numbers keep the text they were written with ("1e-5" stays "1e-5").
class ArgValue {
 public:
  enum class Kind { kNull, kBool, kNumber, kString, kList };
  ArgValue() = default;  // null: the flag is omitted
  ArgValue(bool value) : kind_(Kind::kBool), bool_(value) {}
  ArgValue(int value) : ArgValue(static_cast<long long>(value)) {}
  ArgValue(long value) : ArgValue(static_cast<long long>(value)) {}
  ArgValue(long long value) : kind_(Kind::kNumber), text_(std::to_string(value)) {}
  ArgValue(double value);  // shortest text that reads back as the same double
  ArgValue(const char* value) : kind_(Kind::kString), text_(value) {}
  ArgValue(std::string value) : kind_(Kind::kString), text_(std::move(value)) {}
  ArgValue(std::vector<ArgValue> items) : kind_(Kind::kList), list_(std::move(items)) {}
  static ArgValue number(std::string literal);  // a number written as text ("0.1", "1e-5")

  Kind kind() const { return kind_; }
  bool boolean() const { return bool_; }
  const std::string& text() const { return text_; }  // number or string
  const std::vector<ArgValue>& list() const { return list_; }
  // The value as one command-line word: booleans "True"/"False", lists as "[1, 2]" (XManager
  // stringifies nested lists the Python way), null as "None".
  std::string to_string() const;
  bool operator==(const ArgValue& other) const;

 private:
  Kind kind_ = Kind::kNull;
  bool bool_ = false;
  std::string text_;
  std::vector<ArgValue> list_;
};

// XManager's SequentialArgs: positional items and keyword items, in insertion order.
class Args {
 public:
  Args() = default;
  // The dict form: {{"batch_size", 16}, {"debug", true}}.
  Args(std::initializer_list<std::pair<std::string, ArgValue>> keywords);
  // The list form: {"--foo", "a b"} as positional items.
  static Args list(std::vector<std::string> items);

  Args& add_positional(ArgValue item);
  // A keyword already present keeps its place and takes the new value (XManager merge_args).
  Args& set(const std::string& name, ArgValue value);
  // `later`'s keywords override in place, its positionals are appended.
  Args& merge(const Args& later);

  // The command-line words: positionals as to_string(), keywords as --k=v, --flag/--noflag,
  // repeated --k=v for a list, nothing for null.
  std::vector<std::string> to_list() const;
  bool empty() const { return items_.empty(); }

  struct Item {
    std::optional<std::string> name;  // nullopt for a positional item
    ArgValue value;
  };
  const std::vector<Item>& items() const { return items_; }

 private:
  std::vector<Item> items_;
};

using EnvVars = std::map<std::string, std::string>;
// Throws unless every name matches [a-zA-Z_][a-zA-Z0-9_]* (`where` prefixes the message).
void validate_env_vars(const EnvVars& env, const std::string& where);

// ---- Executable specs ---------------------------------------------------------------------------
struct Binary {
  std::string path;  // relative to the launch directory
};
struct BazelBinary {
  std::string label;  // //pkg:target
  std::vector<std::string> bazel_args;
};
struct Container {
  std::string image_path;  // image reference, or a `docker save` tarball
};
struct BazelContainer {
  std::string label;  // a target producing a `docker save` tarball
  std::vector<std::string> bazel_args;
};
struct PythonContainer {
  std::string module;                 // python -m MODULE; or:
  std::vector<std::string> commands;  // a command list ("$@" appended to the last unless present)
  std::string path = ".";
  std::string base_image;  // empty: the packager's default
  std::optional<std::vector<std::string>> docker_instructions;
  bool use_deep_module = false;
};
struct Dockerfile {
  std::string path = ".";
  std::string dockerfile;  // empty: <path>/Dockerfile
};
using ExecutableSpec =
    std::variant<Binary, BazelBinary, Container, BazelContainer, PythonContainer, Dockerfile>;

// The spec's kind as packagers name it: "binary", "bazel_binary", ... (docs/payloads.md P-13).
std::string kind_of(const ExecutableSpec& spec);
// XManager's default name: the basename of the path, label target or image, non-word
// characters replaced by '_'.
std::string default_name(const ExecutableSpec& spec);

// What to package: a spec plus args and env baked in (they come before the job's own).
struct Packageable {
  ExecutableSpec spec;
  Args args;
  EnvVars env_vars;
  std::string name;  // empty: default_name(spec)
  // Packaged for a remote executor (Vertex, Kubernetes): a Container naming an image reference
  // is used as it is, never pulled into the local Docker Engine, which may not reach it.
  bool remote_destination = false;
};

// A packaged executable (the result of Experiment::package).
struct Executable {
  std::string name;
  std::string kind;        // "process" or "image"
  std::string entrypoint;  // absolute program path (process); empty keeps an image's own
  std::string image;       // image id or reference (image)
  Args args;               // baked-in args (the packager's, then the Packageable's)
  EnvVars env_vars;
  std::string digest;  // content identity
  // An image a packager built or loaded into the local Docker Engine (not a registry reference
  // bound for a remote executor): a remote scheduler must push it before it can run it.
  bool built_locally = false;
};

// ---- Executors and requirements
// ------------------------------------------------------------------ XManager's JobRequirements.
// Resource names are XManager's, case-insensitive: cpu, ram/memory, disk/ephemeral_storage,
// local_gpu and the accelerators (t4, v100, a100, a100_80gib, h100, l4, tpu_v3, tpu_v4, ...). At
// most one accelerator.
struct JobRequirements {
  std::optional<double> cpu;         // vCPUs
  std::optional<int64_t> ram_bytes;  // bytes
  std::optional<int64_t> disk_bytes;
  std::string accelerator;  // lower-case ResourceType name, empty for none
  int64_t accelerator_count = 0;
  std::string topology;  // e.g. "2x2" (count = product)
  std::optional<int> replicas;
  std::string location;

  // From name → value text: "cpu" → "4", "ram" → "16GiB" / "17179869184", "v100" → "2" or
  // "4x2". Throws naming the field for an unknown name, a bad value or a second accelerator.
  static JobRequirements parse(const std::vector<std::pair<std::string, std::string>>& entries,
                               const std::string& where);
};

struct DockerOptions {
  std::map<int, int> ports;                    // container port → host port
  std::map<std::string, std::string> volumes;  // host path → container path
};

struct Executor {
  std::string type = "local";  // resolved through sortie.executors entries (P-14)
  JobRequirements requirements;
  DockerOptions docker_options;
  std::map<std::string, std::string> options;  // the scheduler's run options (-cfg)
};

// ---- Jobs
// ----------------------------------------------------------------------------------------
struct Job {
  Executable executable;
  Executor executor;
  std::string name;  // empty: the executable's name (or the JobGroup key)
  Args args;
  EnvVars env_vars;
};

// A gang of jobs, by name; groups nest (names join with '_').
struct JobGroup {
  struct Member;
  std::vector<Member> members;
  JobGroup& add(std::string name, Job job);
  JobGroup& add(std::string name, JobGroup group);
};
struct JobGroup::Member {
  std::string name;
  std::shared_ptr<Job> job;  // exactly one of job, group
  std::shared_ptr<JobGroup> group;
};

// XManager's add(job, args=...): per-job overrides, merged into Job::args / Job::env_vars.
struct JobArgs {
  Args args;
  EnvVars env_vars;
};
// For a JobGroup: flattened job name → overrides.
using GroupArgs = std::map<std::string, JobArgs>;

// Sweeps: every combination (product) or element-wise (zip, equal lengths) of named values.
std::vector<Args> product(const std::vector<std::pair<std::string, std::vector<ArgValue>>>& axes);
std::vector<Args> zip(const std::vector<std::pair<std::string, std::vector<ArgValue>>>& axes);
// Refuses `count` work units built or added at once (a sweep, Experiment::add_units, Python's
// add(job, args=[...])) past limits::kWorkUnitsPerSweep (docs/limits.md L-14); `what` names
// the caller in the error.
void check_work_unit_count(size_t count, const std::string& what);

// ---- Experiments
// ---------------------------------------------------------------------------------
enum class State { kPending, kRunning, kSucceeded, kFailed, kCancelled, kUnknown };
const char* to_string(State state);

struct JobHandle {
  std::string name;  // {experiment}_{work unit}_{job}
  std::string app;   // SCHEDULER://SESSION/APP_ID
  std::string role;  // the job's role in that app
  State state = State::kPending;
  std::string dryrun_json;  // with Options::dry_run: the scheduler's request (P-7); app is empty
  std::string executable_digest;  // the packaged executable's content identity; may be empty
  int attempt = 1;                // its work unit's attempt it ran in (Experiment::rerun)
};

struct WorkUnit {
  int64_t experiment_id = 0;
  int id = 0;                     // from 1
  std::vector<JobHandle> jobs;    // those of its latest attempt
  State state = State::kPending;  // aggregated over its jobs
  int attempt = 1;                // 1, then one more for each Experiment::rerun of it
  // The jobs of its attempts before the latest, oldest first: their apps, logs and measurements
  // stay on record. Their states are the recorded ones.
  std::vector<JobHandle> earlier_jobs;
  // What it was added with, by job: {"JOB": {"args": [...], "env_vars": {...}}}, its
  // hyperparameters; empty for a unit of a dry run.
  std::string args_json;
  // Where its jobs write, $SORTIE_OUTPUT_DIR (docs/payloads.md P-1.1): the same directory in
  // every attempt, so a re-run finds its checkpoints; "" when its app recorded none.
  std::string output_dir;
};

// Which recorded work units Experiment::rerun runs again: any unit in a selected state, and the
// units listed by id.
struct RerunSelection {
  bool failed = false;     // those whose latest attempt FAILED
  bool cancelled = false;  // those whose latest attempt was CANCELLED
  std::vector<int> units;  // these, whatever terminal state they ended in
};

// Aggregated over work units: RUNNING (or PENDING) while any is active, then FAILED if any
// failed, CANCELLED if any was cancelled, else SUCCEEDED.
State state_of(const std::vector<WorkUnit>& units);

// The store and plugins are found as the `sortie` CLI finds them: $SORTIE_STATE_DIR (else the XDG
// state dir) and the manifest search path of docs/registry.md, plus the prefix this library is
// installed in.
struct Options {
  std::string session;                   // empty: $SORTIE_SESSION, else "default"
  std::string launch_dir;                // relative executable paths resolve here; empty: cwd
  std::vector<std::string> plugin_dirs;  // non-empty: replaces the manifest search path
  bool quiet = false;                    // no packaging progress on stderr
  bool isolate_plugins = false;          // run plugins in child processes (--isolate-plugins)
  // add() asks each scheduler for its request (JobHandle::dryrun_json) and submits nothing; the
  // experiment and its work units are not recorded (its id reads 0).
  bool dry_run = false;
  // The launcher script or experiment file, whose text is recorded with the experiment beside the
  // command line and the launch directory's git state (Experiment::code_record); empty: none.
  std::string launch_script;
  // Process units run from the live launch directory, seeing edits made after the launch, rather
  // than from the experiment's snapshot of it (docs/experiments.md).
  bool live_workdir = false;
};

// A recorded experiment, as `sortie experiments list` shows it.
struct ExperimentSummary {
  int64_t id = 0;
  std::string title;
  std::string launch_dir;
  int64_t created_at = 0;  // ns since the epoch
  int64_t work_units = 0;
  // The distinct states of its work units, sorted. A unit's is its jobs' app states joined by
  // '/' ("RUNNING/SUCCEEDED"), with " (unverified)" when the scheduler could not confirm a
  // recorded state that is not terminal, and "NOT LAUNCHED" for a unit that has no job.
  std::vector<std::string> states;
  // Why its launch stopped short (docs/experiments.md, XF-27); empty when it did not.
  std::string partial_reason;
  // How many work units are in each of `states`, in the same order.
  std::vector<int64_t> state_counts;
  // When its last job ended (ns since the epoch), once every work unit is terminal.
  std::optional<int64_t> ended_at;
  std::vector<std::string> tags;
};

// The newest `limit` experiments (0: all), newest first. Only jobs not yet terminal are asked of
// their schedulers, so listing finished experiments loads no plugin.
std::vector<ExperimentSummary> list_experiments(int limit, const Options& options = {});
// Those that carry `tag`.
std::vector<ExperimentSummary> list_experiments(int limit, const std::string& tag,
                                                const Options& options = {});

struct SessionBinding;

class Experiment {
 public:
  // A new experiment, recorded in the store when its id is first needed (`id()` or the first
  // `add`), so one that fails to package leaves no record; ids come from the store (1, 2, ...).
  static Experiment create(const std::string& title, const Options& options = {});
  // Reopens a recorded experiment (e.g. to wait for or cancel it from another process).
  static Experiment get(int64_t id, const Options& options = {});
  // The ids of the recorded experiments, newest first (XManager's list_experiments).
  static std::vector<int64_t> list_ids(const Options& options = {});
  ~Experiment();
  Experiment(Experiment&&) noexcept;
  Experiment& operator=(Experiment&&) noexcept;

  int64_t id() const;
  const std::string& title() const;

  // Packages every executable in one batch per packager; same order as the input.
  std::vector<Executable> package(const std::vector<Packageable>& packageables);
  // Adds a work unit (id = the next one) and launches it before returning.
  WorkUnit add(const Job& job, const JobArgs& args = {});
  WorkUnit add(const JobGroup& group, const GroupArgs& args = {});
  // Adds one work unit per entry of `units` (a sweep) and launches them together: on a scheduler
  // that submits batches (ABI-14), e.g. slurm, as one job array; elsewhere one by one.
  std::vector<WorkUnit> add_sweep(const Job& job, const std::vector<JobArgs>& units);
  // The same for a job group: each unit is one app whose jobs start and stop together (on
  // slurm one heterogeneous job per unit, which cannot be an array task).
  std::vector<WorkUnit> add_sweep(const JobGroup& group, const std::vector<GroupArgs>& units);
  // Adds one work unit per job, or per job group (each one app whose jobs start together), and
  // launches them together as add_sweep does.
  std::vector<WorkUnit> add_units(const std::vector<Job>& jobs);
  std::vector<WorkUnit> add_units(const std::vector<JobGroup>& groups);

  // Declares that this process launches `units` work units (nullopt: not known) until
  // finish_launch(), e.g. every unit of an experiment file. If the process dies before, the
  // experiment's launch stopped short: partial_reason() says so. Without a declaration each
  // add()/add_sweep() covers its own units.
  void begin_launch(std::optional<int64_t> units);
  void finish_launch();
  // Why the experiment's launch stopped short ("launched 3 of 20 work units; the launch was
  // interrupted (its process 1234 is gone)"), or empty when it did not.
  std::string partial_reason();

  // Notes and tags (docs/experiments.md, "Notes and tags"), XManager's experiment annotations:
  // read from the store, so what another process wrote shows. A tag is 1 to 64 characters of
  // letters, digits and `_ . : / = @ + -`, starting with a letter, digit or `_`; notes are text
  // (docs/limits.md L-22), tags at most L-23 per experiment. INVALID_ARGUMENT names the bad one.
  std::string notes();
  void set_notes(const std::string& notes);
  std::vector<std::string> tags();  // sorted
  void add_tags(const std::vector<std::string>& tags);
  void remove_tags(const std::vector<std::string>& tags);
  // `+TAG` and `-TAG` words, in order (`+x -x` leaves x out), in one store transaction: what
  // `sortie experiments tag` and the dashboard take. A word of neither form is INVALID_ARGUMENT.
  void edit_tags(const std::vector<std::string>& words);
  // Notes (when given) and tag words together, both checked before either is written: a bad one
  // changes nothing.
  void annotate(const std::optional<std::string>& notes, const std::vector<std::string>& words);
  // What its launch ran: a "sortie.code_record/1" JSON text (docs/experiments.md) with the
  // command line, the launcher script's text and the launch directory's git commit, branch,
  // uncommitted diff and untracked files; empty for one recorded before sortie kept it.
  std::string code_record();

  // Current states, refreshed from the schedulers.
  std::vector<WorkUnit> work_units();
  // state_of(work_units()).
  State state();
  // Waits until every work unit is terminal, `timeout` passed (negative: no limit; then the state
  // is not terminal) or SIGINT/SIGTERM arrived where the caller installed
  // session::install_interrupt_handlers(); returns the aggregated state.
  State wait_until_complete(std::chrono::milliseconds timeout = std::chrono::milliseconds(-1));
  // Requests the cancellation of every job of every work unit, one call per scheduler for them
  // all (e.g. one scancel for a Slurm sweep), and returns once the schedulers accepted it; an
  // Error names the apps that could not be cancelled (the others were).
  void cancel();
  // Runs the selected work units again, each as its next attempt (docs/experiments.md XF-34):
  // every app of its latest attempt is submitted again as recorded (args, env, executables and
  // run options), one batch per scheduler (one Slurm job array for them all); the earlier
  // attempts stay on record. Returns the re-run units, in id order. INVALID_ARGUMENT names the
  // units still running (or pending) and refuses a selection that matches no unit; NOT_FOUND
  // names an id the experiment does not have or a unit that never launched.
  std::vector<WorkUnit> rerun(const RerunSelection& selection);

 private:
  class Impl;
  friend struct SessionBinding;
  explicit Experiment(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace sortie::xm

#endif  // SORTIE_XM_HPP
