// `sortie experiments list|show ID|cancel ID`: experiments recorded by `sortie launch` or the
// C++ launch API, from any shell.
#include <boost/program_options.hpp>
#include <cstdio>
#include <map>
#include <set>
#include <sortie/core/error.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/xm.hpp>

#include "command_line.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {
namespace {

constexpr const char* kUsage =
    "usage: sortie experiments list [--limit N] [--json]\n"
    "       sortie experiments show ID [--json]\n"
    "       sortie experiments cancel ID\n";

xm::Options options_of(session::Session& ctx) {
  xm::Options options;
  options.session = ctx.options().session;
  options.plugin_dirs = ctx.options().plugin_dirs;
  options.quiet = ctx.options().quiet;
  return options;
}

int64_t experiment_id(const std::string& text) {
  size_t used = 0;
  long long id = 0;
  try {
    id = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || id <= 0) {
    throw core::Error::invalid_argument("experiment id '" + text +
                                        "' is not a positive number (see `sortie "
                                        "experiments list`)");
  }
  return id;
}

// The state of a job's app: the store's record, refreshed from its scheduler (and recorded)
// only while it is not terminal, so listing finished experiments asks no plugin.
std::string job_state(session::Session& ctx, const std::string& handle) {
  const auto app = ctx.store().get(handle);
  if (!app) return "UNKNOWN";
  if (core::is_terminal(app->state)) return core::to_string(app->state);
  try {
    const session::AppLookup lookup = session::lookup_app(ctx, handle);
    if (lookup.status && lookup.not_refreshed.empty()) return core::to_string(lookup.status->state);
  } catch (const core::Error&) {
    // Shown as unverified below; `experiments show` reports the error itself.
  }
  return std::string(core::to_string(app->state)) + " (unverified)";
}

// `known` holds the states found so far by handle: a job group's jobs share one app.
std::string unit_state(session::Session& ctx, const core::WorkUnitRecord& unit,
                       std::map<std::string, std::string>& known) {
  std::set<std::string> states;
  for (const core::ExperimentJobRecord& job : unit.jobs) {
    auto found = known.find(job.handle);
    if (found == known.end()) found = known.emplace(job.handle, job_state(ctx, job.handle)).first;
    states.insert(found->second);
  }
  if (states.empty()) return "NOT LAUNCHED";
  std::string text;
  for (const std::string& state : states) text += (text.empty() ? "" : "/") + state;
  return text;
}

// One line of `experiments list`.
struct ExperimentRow {
  core::ExperimentRecord experiment;
  size_t work_units = 0;
  std::set<std::string> states;  // the work units' states, distinct
};

void print_experiments_json(const std::vector<ExperimentRow>& rows) {
  session::JsonText out;
  out.begin_object().key("schema").string("sortie.cli.experiments/1").key("experiments");
  out.begin_array();
  for (const ExperimentRow& row : rows) {
    out.begin_object()
        .key("id")
        .number(row.experiment.id)
        .key("title")
        .string(row.experiment.title);
    out.key("launch_dir").string(row.experiment.launch_dir);
    out.key("created_at").number(row.experiment.created_at);
    out.key("work_units").number(static_cast<int64_t>(row.work_units)).key("states").begin_array();
    for (const std::string& state : row.states) out.string(state);
    out.end_array().end_object();
  }
  out.end_array().end_object();
  std::printf("%s\n", out.str().c_str());
}

int list(session::Session& ctx, const Args& args) {
  int limit = 20;
  po::options_description desc("experiments list options");
  desc.add_options()("help,h", "show this help")("limit", po::value(&limit),
                                                 "newest N experiments (default 20; 0 = all)")(
      "json", "print JSON (docs/cli-json.md)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::printf("%s\n", kUsage);
    return kExitOk;
  }
  std::vector<ExperimentRow> rows;
  std::map<std::string, std::string> known;
  for (const core::ExperimentRecord& experiment : ctx.store().experiments(limit)) {
    const auto units = ctx.store().work_units(experiment.id);
    std::set<std::string> states;
    for (const core::WorkUnitRecord& unit : units) states.insert(unit_state(ctx, unit, known));
    rows.push_back({experiment, units.size(), std::move(states)});
  }
  if (vm.count("json") != 0) {
    print_experiments_json(rows);
    return kExitOk;
  }
  std::printf("%-6s %-30s %-10s %s\n", "ID", "TITLE", "UNITS", "STATES");
  for (const ExperimentRow& row : rows) {
    std::string text;
    for (const std::string& state : row.states) text += (text.empty() ? "" : ", ") + state;
    std::printf("%-6lld %-30s %-10zu %s\n", static_cast<long long>(row.experiment.id),
                row.experiment.title.c_str(), row.work_units, text.c_str());
  }
  return kExitOk;
}

void print_units(const std::vector<xm::WorkUnit>& units) {
  for (const xm::WorkUnit& unit : units) {
    std::printf("work unit %d: %s\n", unit.id, xm::to_string(unit.state));
    for (const xm::JobHandle& job : unit.jobs) {
      std::printf("  %-28s %-10s %s (role %s)\n", job.name.c_str(), xm::to_string(job.state),
                  job.app.c_str(), job.role.c_str());
    }
  }
}

// False, having said so, when no experiment has this id: an unknown id exits 1, as an unknown
// handle does (docs/exit-status.md).
bool experiment_known(session::Session& ctx, int64_t id) {
  if (ctx.store().experiment(id)) return true;
  std::fprintf(stderr, "sortie: no experiment %lld in the store (see `sortie experiments list`)\n",
               static_cast<long long>(id));
  return false;
}

void print_experiment_json(xm::Experiment& experiment, const std::vector<xm::WorkUnit>& units) {
  session::JsonText out;
  out.begin_object().key("schema").string("sortie.cli.experiment/1");
  out.key("id").number(experiment.id()).key("title").string(experiment.title());
  out.key("state").string(xm::to_string(xm::state_of(units))).key("work_units").begin_array();
  for (const xm::WorkUnit& unit : units) {
    out.begin_object().key("id").number(static_cast<int64_t>(unit.id));
    out.key("state").string(xm::to_string(unit.state)).key("jobs").begin_array();
    for (const xm::JobHandle& job : unit.jobs) {
      out.begin_object().key("name").string(job.name).key("state").string(xm::to_string(job.state));
      out.key("app").string(job.app).key("role").string(job.role).end_object();
    }
    out.end_array().end_object();
  }
  out.end_array().end_object();
  std::printf("%s\n", out.str().c_str());
}

int show(session::Session& ctx, const Args& args) {
  po::options_description desc("experiments show options");
  desc.add_options()("help,h", "show this help")("json", "print JSON (docs/cli-json.md)");
  po::variables_map vm;
  const auto id_text =
      parse_positional_command("usage: sortie experiments show ID [--json]", desc,
                               "experiment ID (see `sortie experiments list`)", args, vm);
  if (!id_text) return kExitOk;
  const int64_t id = experiment_id(*id_text);
  if (!experiment_known(ctx, id)) return kExitAppNotSucceeded;
  xm::Experiment experiment = xm::Experiment::get(id, options_of(ctx));
  const std::vector<xm::WorkUnit> units = experiment.work_units();
  if (vm.count("json") != 0) {
    print_experiment_json(experiment, units);
    return kExitOk;
  }
  std::printf("experiment %lld '%s'\n", static_cast<long long>(experiment.id()),
              experiment.title().c_str());
  print_units(units);
  std::printf("state: %s\n", xm::to_string(xm::state_of(units)));
  return kExitOk;
}

int cancel(session::Session& ctx, const std::string& id_text) {
  const int64_t id = experiment_id(id_text);
  if (!experiment_known(ctx, id)) return kExitAppNotSucceeded;
  xm::Experiment experiment = xm::Experiment::get(id, options_of(ctx));
  experiment.cancel();
  experiment.wait_until_complete();
  const std::vector<xm::WorkUnit> units = experiment.work_units();
  print_units(units);
  std::printf("experiment %lld %s\n", static_cast<long long>(experiment.id()),
              xm::to_string(xm::state_of(units)));
  return kExitOk;
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
  if (args[0] == "cancel") {
    if (rest.size() != 1) {
      throw core::Error::invalid_argument("usage: sortie experiments " + args[0] + " ID");
    }
    return cancel(ctx, rest[0]);
  }
  throw core::Error::invalid_argument("unknown experiments command '" + args[0] +
                                      "'; expected list, show or cancel");
}

}  // namespace sortie::cli
