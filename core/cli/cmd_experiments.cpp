// `sortie experiments list|show ID|cancel ID`: experiments recorded by `sortie launch` or the
// C++ launch API, from any shell.
#include <boost/program_options.hpp>
#include <cstdio>
#include <map>
#include <set>
#include <sortie/core/error.hpp>
#include <sortie/xm.hpp>

#include "app_lookup.hpp"
#include "command_line.hpp"
#include "commands.hpp"

namespace po = boost::program_options;

namespace sortie::cli {
namespace {

constexpr const char* kUsage =
    "usage: sortie experiments list [--limit N]\n"
    "       sortie experiments show ID\n"
    "       sortie experiments cancel ID\n";

xm::Options options_of(CliContext& ctx) {
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
    throw core::Error("experiment id '" + text +
                      "' is not a positive number (see `sortie "
                      "experiments list`)");
  }
  return id;
}

// The state of a job's app: the store's record, refreshed from its scheduler (and recorded)
// only while it is not terminal, so listing finished experiments asks no plugin.
std::string job_state(CliContext& ctx, const std::string& handle) {
  const auto app = ctx.store().get(handle);
  if (!app) return "UNKNOWN";
  if (core::is_terminal(app->state)) return core::to_string(app->state);
  try {
    const AppLookup lookup = lookup_app(ctx, handle);
    if (lookup.status && lookup.not_refreshed.empty()) return core::to_string(lookup.status->state);
  } catch (const core::Error&) {
    // Shown as unverified below; `experiments show` reports the error itself.
  }
  return std::string(core::to_string(app->state)) + " (unverified)";
}

// `known` holds the states found so far by handle: a job group's jobs share one app.
std::string unit_state(CliContext& ctx, const core::WorkUnitRecord& unit,
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

int list(CliContext& ctx, const Args& args) {
  int limit = 20;
  po::options_description desc("experiments list options");
  desc.add_options()("help,h", "show this help")("limit", po::value(&limit),
                                                 "newest N experiments (default 20; 0 = all)");
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::printf("%s\n", kUsage);
    return kExitOk;
  }
  std::printf("%-6s %-30s %-10s %s\n", "ID", "TITLE", "UNITS", "STATES");
  std::map<std::string, std::string> known;
  for (const core::ExperimentRecord& experiment : ctx.store().experiments(limit)) {
    const auto units = ctx.store().work_units(experiment.id);
    std::set<std::string> states;
    for (const core::WorkUnitRecord& unit : units) states.insert(unit_state(ctx, unit, known));
    std::string text;
    for (const std::string& state : states) text += (text.empty() ? "" : ", ") + state;
    std::printf("%-6lld %-30s %-10zu %s\n", static_cast<long long>(experiment.id),
                experiment.title.c_str(), units.size(), text.c_str());
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
bool experiment_known(CliContext& ctx, int64_t id) {
  if (ctx.store().experiment(id)) return true;
  std::fprintf(stderr, "sortie: no experiment %lld in the store (see `sortie experiments list`)\n",
               static_cast<long long>(id));
  return false;
}

int show(CliContext& ctx, const std::string& id_text) {
  const int64_t id = experiment_id(id_text);
  if (!experiment_known(ctx, id)) return kExitAppNotSucceeded;
  xm::Experiment experiment = xm::Experiment::get(id, options_of(ctx));
  const std::vector<xm::WorkUnit> units = experiment.work_units();
  std::printf("experiment %lld '%s'\n", static_cast<long long>(experiment.id()),
              experiment.title().c_str());
  print_units(units);
  std::printf("state: %s\n", xm::to_string(xm::state_of(units)));
  return kExitOk;
}

int cancel(CliContext& ctx, const std::string& id_text) {
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

int cmd_experiments(CliContext& ctx, const Args& args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::printf("%s", kUsage);
    return args.empty() ? kExitUsage : kExitOk;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "list") return list(ctx, rest);
  if (args[0] == "show" || args[0] == "cancel") {
    if (rest.size() != 1) {
      throw core::Error("usage: sortie experiments " + args[0] + " ID");
    }
    return args[0] == "show" ? show(ctx, rest[0]) : cancel(ctx, rest[0]);
  }
  throw core::Error("unknown experiments command '" + args[0] + "'; expected list, show or cancel");
}

}  // namespace sortie::cli
