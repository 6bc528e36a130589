// `sortie experiments list|show ID|cancel ID|note ID|tag ID`: experiments recorded by `sortie
// launch` or the launch API, from any shell, and what a researcher writes on them. A thin client of
// the launch API (sortie/xm.hpp).
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <optional>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/work_unit_args.hpp>
#include <sortie/xm/session_binding.hpp>
#include <sortie/xm/workdir_snapshot.hpp>

#include "code_summary.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "durations.hpp"
#include "experiment_diff.hpp"
#include "experiment_wait.hpp"
#include "printable.hpp"
#include "unit_list.hpp"
#include "unit_record.hpp"
#include "unit_results.hpp"

namespace po = boost::program_options;

namespace sortie::cli {
namespace {

constexpr const char* kUsage =
    "usage: sortie experiments list [--limit N] [--tag TAG] [--json]\n"
    "       sortie experiments show ID [--unit N] [--sort COLUMN] [--best KEY:min|max]...\n"
    "                                  [--json | --csv]\n"
    "       sortie experiments note ID TEXT       (TEXT - reads stdin)\n"
    "       sortie experiments tag ID [+TAG | -TAG]...\n"
    "       sortie experiments diff ID1 ID2\n"
    "       sortie experiments verify [ID]\n"
    "       sortie experiments cancel ID [--timeout SECONDS]\n"
    "       sortie experiments rerun ID (--failed | --cancelled | --units 3,7-9)... [--wait]\n";

int64_t experiment_id(const std::string& text) {
  size_t used = 0;
  long long id = 0;
  try {
    id = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || id <= 0) {
    throw Error::invalid_argument("experiment id '" + text +
                                  "' is not a positive number (see `sortie "
                                  "experiments list`)");
  }
  return id;
}

void print_experiments_json(const std::vector<xm::ExperimentSummary>& rows) {
  session::JsonText out;
  out.begin_object().key("schema").string("sortie.cli.experiments/1").key("experiments");
  out.begin_array();
  for (const xm::ExperimentSummary& row : rows) {
    out.begin_object().key("id").number(row.id).key("title").string(row.title);
    out.key("launch_dir").string(row.launch_dir);
    out.key("created_at").number(row.created_at);
    out.key("work_units").number(row.work_units).key("states").begin_array();
    for (const std::string& state : row.states) out.string(state);
    out.end_array().key("units_by_state").begin_object();
    for (size_t i = 0; i < row.states.size(); ++i)
      out.key(row.states[i]).number(row.state_counts[i]);
    out.end_object().key("ended_at");
    row.ended_at ? out.number(*row.ended_at) : out.null();
    out.key("tags").begin_array();
    for (const std::string& tag : row.tags) out.string(tag);
    out.end_array().key("partial_reason").string(row.partial_reason).end_object();
  }
  out.end_array().end_object();
  std::printf("%s\n", out.str().c_str());
}

// "2 RUNNING, 4 SUCCEEDED", after PARTIAL for an interrupted launch: its units' states alone
// would not say so (XF-27).
std::string states_text(const xm::ExperimentSummary& row) {
  std::string text = row.partial_reason.empty() ? "" : "PARTIAL";
  for (size_t i = 0; i < row.states.size(); ++i) {
    text += (text.empty() ? "" : ", ") + std::to_string(row.state_counts[i]) + " " + row.states[i];
  }
  return text;
}

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : separator) + word;
  return text;
}

int list(session::Session& ctx, const Args& args) {
  int limit = 20;
  std::string tag;
  po::options_description desc("experiments list options");
  desc.add_options()("help,h", "show this help")("limit", po::value(&limit),
                                                 "newest N experiments (default 20; 0 = all)")(
      "tag", po::value(&tag), "only the experiments tagged TAG")("json",
                                                                 "print JSON (docs/cli-json.md)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::printf("%s\n", kUsage);
    return kExitOk;
  }
  const std::vector<xm::ExperimentSummary> rows = xm::SessionBinding::list(ctx, limit, tag);
  if (vm.count("json") != 0) {
    print_experiments_json(rows);
    return kExitOk;
  }
  std::printf("%-6s %-30s %-6s %-10s %-9s %-30s %s\n", "ID", "TITLE", "UNITS", "STARTED",
              "DURATION", "STATES", "TAGS");
  for (const xm::ExperimentSummary& row : rows) {
    const int64_t end = row.ended_at ? *row.ended_at : session::now_ns();
    std::printf("%-6lld %-30s %-6lld %-10s %-9s %-30s %s\n", static_cast<long long>(row.id),
                printable(row.title).c_str(), static_cast<long long>(row.work_units),
                age(row.created_at).c_str(), coarse_duration(end - row.created_at).c_str(),
                printable(states_text(row)).c_str(), joined(row.tags, ",").c_str());
  }
  return kExitOk;
}

void print_units(const std::vector<xm::WorkUnit>& units) {
  for (const xm::WorkUnit& unit : units) {
    const std::string settings = session::hyperparameters_text(unit.args_json);
    // The attempt shows once there is more than one: a unit that ran once reads as before.
    const std::string attempt =
        unit.attempt > 1 ? " (attempt " + std::to_string(unit.attempt) + ")" : "";
    std::printf("work unit %d: %s%s%s%s\n", unit.id, xm::to_string(unit.state), attempt.c_str(),
                settings.empty() ? "" : "  ", printable(settings).c_str());
    if (!unit.output_dir.empty()) std::printf("  output: %s\n", printable(unit.output_dir).c_str());
    for (const xm::JobHandle& job : unit.jobs) {
      std::printf("  %-28s %-10s %s (role %s)\n", printable(job.name).c_str(),
                  xm::to_string(job.state), printable(job.app).c_str(),
                  printable(job.role).c_str());
    }
    for (const xm::JobHandle& job : unit.earlier_jobs) {
      std::printf("  %-28s %-10s %s (role %s, attempt %d)\n", printable(job.name).c_str(),
                  xm::to_string(job.state), printable(job.app).c_str(), printable(job.role).c_str(),
                  job.attempt);
    }
  }
}

// The recorded experiment `id_text` names, or nullopt having said on stderr that there is none:
// an unknown id exits 1, as an unknown handle does (docs/exit-status.md).
std::optional<xm::Experiment> recorded_experiment(session::Session& ctx,
                                                  const std::string& id_text) {
  const int64_t id = experiment_id(id_text);
  try {
    return xm::SessionBinding::get(ctx, id);
  } catch (const Error& e) {
    if (e.status() != SORTIE_NOT_FOUND) throw;
    std::fprintf(stderr, "sortie: %s\n", model::printable_message(e.what()).c_str());
    return std::nullopt;
  }
}

// PARTIAL when the launch stopped short (XF-27), else the units' aggregated state.
std::string experiment_state(const std::vector<xm::WorkUnit>& units,
                             const std::string& partial_reason) {
  return partial_reason.empty() ? xm::to_string(xm::state_of(units)) : "PARTIAL";
}

void print_experiment_json(xm::Experiment& experiment, const std::vector<xm::WorkUnit>& units,
                           const UnitResults& results) {
  const std::string partial_reason = experiment.partial_reason();
  session::JsonText out;
  out.begin_object().key("schema").string("sortie.cli.experiment/1");
  out.key("id").number(experiment.id()).key("title").string(experiment.title());
  out.key("state").string(experiment_state(units, partial_reason));
  out.key("partial_reason").string(partial_reason);
  out.key("tags").begin_array();
  for (const std::string& tag : experiment.tags()) out.string(tag);
  out.end_array().key("notes").string(experiment.notes()).key("code");
  out.raw_or_null(experiment.code_record()).key("snapshot");
  if (const auto snapshot = xm::read_workdir_snapshot(experiment.id())) {
    out.begin_object().key("root").string(snapshot->root).key("digest").string(snapshot->digest);
    out.key("files").number(snapshot->files).key("bytes").number(snapshot->bytes).end_object();
  } else {
    out.null();
  }
  out.key("units_state").string(xm::to_string(xm::state_of(units))).key("work_units").begin_array();
  for (const UnitRow& row : results.rows) {
    const xm::WorkUnit& unit = *row.unit;
    out.begin_object().key("id").number(static_cast<int64_t>(unit.id));
    out.key("state").string(xm::to_string(unit.state)).key("args").begin_object();
    for (const auto& [name, value] : session::hyperparameters_of(unit.args_json)) {
      out.key(name).string(value);
    }
    out.end_object().key("jobs").begin_array();
    for (const xm::JobHandle& job : unit.jobs) {
      out.begin_object().key("name").string(job.name).key("state").string(xm::to_string(job.state));
      out.key("app").string(job.app).key("role").string(job.role);
      out.key("executable_digest").string(job.executable_digest).end_object();
    }
    out.end_array().key("attempt").number(static_cast<int64_t>(unit.attempt));
    out.key("earlier_attempts").begin_array();
    for (const xm::JobHandle& job : unit.earlier_jobs) {
      out.begin_object().key("attempt").number(static_cast<int64_t>(job.attempt));
      out.key("name").string(job.name).key("state").string(xm::to_string(job.state));
      out.key("app").string(job.app).key("role").string(job.role).end_object();
    }
    out.end_array().key("output_dir").string(unit.output_dir);
    unit_measurements_json(out, row);
    out.end_object();
  }
  out.end_array().end_object();
  std::printf("%s\n", out.str().c_str());
}

int show(session::Session& ctx, const Args& args) {
  int unit_id = 0;
  std::string sort;
  std::vector<std::string> best;
  po::options_description desc("experiments show options");
  desc.add_options()("help,h", "show this help")(
      "unit", po::value(&unit_id),
      "show work unit N only: its hyperparameters and, per job, the executable's digest and the "
      "app as submitted (args, env with secrets masked, resources)")(
      "sort", po::value(&sort),
      "order the units by a column: unit, state, a hyperparameter, a measured key (its last "
      "value) or a --best column; --sort=-KEY sorts descending")(
      "best", po::value(&best),
      "also show each unit's least (KEY:min) or greatest (KEY:max) value of KEY, the best unit "
      "marked * (repeatable)")("json", "print JSON (docs/cli-json.md)")(
      "csv", "print the units' table as CSV");
  po::variables_map vm;
  const auto id_text = parse_positional_command(
      "usage: sortie experiments show ID [--unit N] [--sort COLUMN] [--best KEY:min|max]... "
      "[--json | --csv]",
      desc, "experiment ID (see `sortie experiments list`)", args, vm);
  if (!id_text) return kExitOk;
  if (vm.count("json") != 0 && vm.count("csv") != 0) {
    throw Error::invalid_argument("--json and --csv cannot be combined; choose one");
  }
  std::vector<BestColumn> best_columns;
  for (const std::string& text : best) best_columns.push_back(parse_best_column(text));
  std::optional<xm::Experiment> experiment = recorded_experiment(ctx, *id_text);
  if (!experiment) return kExitAppNotSucceeded;
  if (vm.count("unit") != 0) {
    return show_work_unit(ctx, *experiment, unit_id, vm.count("json") != 0);
  }
  const std::vector<xm::WorkUnit> units = experiment->work_units();
  UnitResults results = unit_results(ctx, units, std::move(best_columns));
  if (!sort.empty()) sort_unit_results(results, sort);
  if (vm.count("json") != 0) {
    print_experiment_json(*experiment, units, results);
    return kExitOk;
  }
  if (vm.count("csv") != 0) {
    print_unit_csv(results);
    return kExitOk;
  }
  std::printf("experiment %lld '%s'\n", static_cast<long long>(experiment->id()),
              printable(experiment->title()).c_str());
  const std::vector<std::string> tags = experiment->tags();
  if (!tags.empty()) std::printf("tags: %s\n", joined(tags, ", ").c_str());
  if (const std::string notes = experiment->notes(); !notes.empty()) {
    std::printf("notes: %s\n", printable(notes).c_str());
  }
  std::printf("%s", code_summary(experiment->code_record()).c_str());
  if (const auto snapshot = xm::read_workdir_snapshot(experiment->id())) {
    std::printf("runs from: %s (a snapshot: %lld files, %s)\n", printable(snapshot->root).c_str(),
                static_cast<long long>(snapshot->files), snapshot->digest.substr(0, 19).c_str());
  }
  print_units(units);
  // The units side by side once they measured something, or when asked to order them.
  if (!results.keys.empty() || !sort.empty()) print_unit_table(results);
  const std::string partial_reason = experiment->partial_reason();
  if (partial_reason.empty()) {
    std::printf("state: %s\n", xm::to_string(xm::state_of(units)));
  } else {
    std::printf("state: PARTIAL (%s; the launched units are %s)\n",
                printable(partial_reason).c_str(), xm::to_string(xm::state_of(units)));
  }
  return kExitOk;
}

// Cancels every app of the experiment (one request per scheduler, e.g. one scancel for a Slurm
// sweep), then waits at most --timeout for them to end, to report the experiment's end state.
int cancel(session::Session& ctx, const Args& args) {
  double timeout_s = 60;
  po::options_description desc("experiments cancel options");
  desc.add_options()("help,h", "show this help")(
      "timeout", po::value(&timeout_s),
      "seconds to wait at most for the cancelled work units to end (default 60; 0 = return once "
      "the schedulers accepted the cancellation); running out exits 3");
  po::variables_map vm;
  const auto id_text = parse_positional_command(
      "usage: sortie experiments cancel ID [--timeout SECONDS]", desc, "ID", args, vm);
  if (!id_text) return kExitOk;
  if (timeout_s < 0) throw Error::invalid_argument("--timeout must be 0 or more seconds");
  std::optional<xm::Experiment> experiment = recorded_experiment(ctx, *id_text);
  if (!experiment) return kExitAppNotSucceeded;
  experiment->cancel();
  session::install_interrupt_handlers();
  const xm::State state = experiment->wait_until_complete(
      std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
  const std::vector<xm::WorkUnit> units = experiment->work_units();
  print_units(units);
  std::printf("experiment %lld %s\n", static_cast<long long>(experiment->id()),
              xm::to_string(xm::state_of(units)));
  if (state != xm::State::kPending && state != xm::State::kRunning) return kExitOk;
  if (session::interrupted() != 0) return kExitInterrupted;
  if (timeout_s > 0) {
    std::fprintf(stderr,
                 "sortie experiments cancel: cancel requested; work units still run after "
                 "--timeout %g s\n",
                 timeout_s);
    return kExitBackend;
  }
  return kExitOk;
}

// `experiments rerun ID --failed|--cancelled|--units LIST [--wait]`: the selected units run again
// as their next attempt, as recorded (docs/experiments.md XF-34).
int rerun(session::Session& ctx, const Args& args) {
  xm::RerunSelection selection;
  std::string units;
  bool missing = false;
  ExperimentWait waiting;
  po::options_description desc("experiments rerun options");
  desc.add_options()("help,h", "show this help")("failed", po::bool_switch(&selection.failed),
                                                 "the units that FAILED")(
      "cancelled", po::bool_switch(&selection.cancelled), "the units that were CANCELLED")(
      "units", po::value(&units), "these units: ids and ranges, e.g. 3,7-9")(
      "missing", po::bool_switch(&missing),
      "the units an interrupted launch never launched (not supported yet)");
  waiting.add_options(desc);
  po::variables_map vm;
  const auto id_text = parse_positional_command(
      "usage: sortie experiments rerun ID (--failed | --cancelled | --units 3,7-9)... [--wait]",
      desc, "ID", args, vm);
  if (!id_text) return kExitOk;
  if (missing) {
    throw Error::invalid_argument(
        "--missing is not supported yet: the units an interrupted launch never reached have no "
        "recorded jobs to run again; launch them anew (`sortie launch`)");
  }
  if (!units.empty()) selection.units = parse_unit_list(units);
  if (!selection.failed && !selection.cancelled && selection.units.empty()) {
    throw Error::invalid_argument(
        "experiments rerun: say which work units to run again: --failed, --cancelled or --units "
        "3,7-9");
  }
  waiting.check(vm);
  std::optional<xm::Experiment> experiment = recorded_experiment(ctx, *id_text);
  if (!experiment) return kExitAppNotSucceeded;
  for (const xm::WorkUnit& unit : experiment->rerun(selection)) {
    for (const xm::JobHandle& job : unit.jobs) {
      std::printf("  work unit %d (attempt %d): %s %s\n", unit.id, unit.attempt,
                  printable(job.name).c_str(), printable(job.app).c_str());
    }
  }
  std::fflush(stdout);
  if (!waiting.wait) return kExitOk;
  return wait_for_experiment(*experiment, waiting.timeout_s, "sortie experiments rerun");
}

// At most `max_bytes` of stdin: enough to tell a text past its limit, never more.
std::string read_stdin(size_t max_bytes) {
  std::string text;
  char buffer[65536];
  while (text.size() < max_bytes) {
    const size_t got =
        std::fread(buffer, 1, std::min(sizeof(buffer), max_bytes - text.size()), stdin);
    if (got == 0) break;
    text.append(buffer, got);
  }
  return text;
}

constexpr const char* kDiffUsage = "usage: sortie experiments diff ID1 ID2";
constexpr const char* kNoteUsage =
    "usage: sortie experiments note ID TEXT (TEXT - reads stdin; an empty TEXT clears the notes)";
constexpr const char* kTagUsage = "usage: sortie experiments tag ID [+TAG | -TAG]...";
constexpr const char* kVerifyUsage = "usage: sortie experiments verify [ID]";

// A subcommand without options of its own answers -h or --help as its first word with its usage,
// where the word was read as an experiment id.
bool printed_help(const Args& args, const char* usage) {
  if (args.empty() || (args[0] != "-h" && args[0] != "--help")) return false;
  std::printf("%s\n", usage);
  return true;
}

// `experiments diff ID1 ID2`: what changed from the first to the second.
int diff(session::Session& ctx, const Args& args) {
  if (printed_help(args, kDiffUsage)) return kExitOk;
  if (args.size() != 2) throw Error::invalid_argument(kDiffUsage);
  std::optional<xm::Experiment> before = recorded_experiment(ctx, args[0]);
  if (!before) return kExitAppNotSucceeded;
  std::optional<xm::Experiment> after = recorded_experiment(ctx, args[1]);
  if (!after) return kExitAppNotSucceeded;
  const std::string differences = experiment_diff(*before, *after);
  std::printf("%s", differences.empty() ? "the same code and settings\n" : differences.c_str());
  return kExitOk;
}

// `experiments note ID TEXT`: TEXT replaces the notes; `-` reads them from stdin.
int note(session::Session& ctx, const Args& args) {
  if (printed_help(args, kNoteUsage)) return kExitOk;
  if (args.size() != 2) throw Error::invalid_argument(kNoteUsage);
  std::optional<xm::Experiment> experiment = recorded_experiment(ctx, args[0]);
  if (!experiment) return kExitAppNotSucceeded;
  std::string notes = args[1];
  if (notes == "-") notes = read_stdin(limits::value(limits::kExperimentNotesBytes) + 1);
  experiment->set_notes(notes);
  return kExitOk;
}

// `experiments tag ID +TAG -TAG ...`: one transaction; with no words, prints the tags.
int tag(session::Session& ctx, const Args& args) {
  if (printed_help(args, kTagUsage)) return kExitOk;
  if (args.empty()) throw Error::invalid_argument(kTagUsage);
  std::optional<xm::Experiment> experiment = recorded_experiment(ctx, args[0]);
  if (!experiment) return kExitAppNotSucceeded;
  experiment->edit_tags(Args(args.begin() + 1, args.end()));
  for (const std::string& tag : experiment->tags()) std::printf("%s\n", tag.c_str());
  return kExitOk;
}

// `experiments verify [ID]`: hashes every blob of the snapshot store against its name, and the
// files of experiment ID's tree against its checksums; exit 1 when anything changed.
int verify(const Args& args) {
  if (printed_help(args, kVerifyUsage)) return kExitOk;
  if (args.size() > 1) throw Error::invalid_argument(kVerifyUsage);
  std::optional<int64_t> id;
  if (!args.empty()) id = experiment_id(args[0]);
  const xm::SnapshotVerification found = xm::verify_workdir_snapshots(id);
  for (const std::string& blob : found.corrupt_blobs) {
    std::printf("changed blob, moved aside: %s\n", printable(blob).c_str());
  }
  for (const std::string& file : found.changed_files) {
    std::printf("changed in experiment %lld's snapshot: %s\n", static_cast<long long>(*id),
                printable(file).c_str());
  }
  std::printf("%lld blobs (%lld bytes) checked in %s: %zu changed%s\n",
              static_cast<long long>(found.blobs), static_cast<long long>(found.bytes),
              printable(xm::workdir_snapshot_dir()).c_str(), found.corrupt_blobs.size(),
              id ? (", " + std::to_string(found.changed_files.size()) + " file(s) of experiment " +
                    std::to_string(*id) + "'s snapshot changed")
                       .c_str()
                 : "");
  return found.corrupt_blobs.empty() && found.changed_files.empty() ? kExitOk
                                                                    : kExitAppNotSucceeded;
}

}  // namespace

int cmd_experiments(session::Session& ctx, const Args& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::printf("%s", kUsage);
    return args.empty() ? kExitUsage : kExitOk;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "list") return list(ctx, rest);
  if (args[0] == "show") return show(ctx, rest);
  if (args[0] == "cancel") return cancel(ctx, rest);
  if (args[0] == "rerun") return rerun(ctx, rest);
  if (args[0] == "note") return note(ctx, rest);
  if (args[0] == "diff") return diff(ctx, rest);
  if (args[0] == "tag") return tag(ctx, rest);
  if (args[0] == "verify") return verify(rest);
  throw Error::invalid_argument("unknown experiments command '" + args[0] +
                                "'; expected list, show, cancel, rerun, note, tag, diff or verify");
}

}  // namespace sortie::cli
