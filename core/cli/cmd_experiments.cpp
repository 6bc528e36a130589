// `sortie experiments list|show ID|cancel ID`: experiments recorded by `sortie launch` or the
// C++ launch API, from any shell. A thin client of the launch API (sortie/xm.hpp).
#include <boost/program_options.hpp>
#include <cstdio>
#include <optional>
#include <sortie/core/error.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/xm/session_binding.hpp>

#include "command_line.hpp"
#include "commands.hpp"
#include "printable.hpp"

namespace po = boost::program_options;

namespace sortie::cli {
namespace {

constexpr const char* kUsage =
    "usage: sortie experiments list [--limit N] [--json]\n"
    "       sortie experiments show ID [--json]\n"
    "       sortie experiments cancel ID\n";

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
    out.end_array().key("partial_reason").string(row.partial_reason).end_object();
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
  const std::vector<xm::ExperimentSummary> rows = xm::SessionBinding::list(ctx, limit);
  if (vm.count("json") != 0) {
    print_experiments_json(rows);
    return kExitOk;
  }
  std::printf("%-6s %-30s %-10s %s\n", "ID", "TITLE", "UNITS", "STATES");
  for (const xm::ExperimentSummary& row : rows) {
    // An interrupted launch says so first: its units' states alone would not (XF-27).
    std::string text = row.partial_reason.empty() ? "" : "PARTIAL";
    for (const std::string& state : row.states) text += (text.empty() ? "" : ", ") + state;
    std::printf("%-6lld %-30s %-10lld %s\n", static_cast<long long>(row.id),
                printable(row.title).c_str(), static_cast<long long>(row.work_units), text.c_str());
  }
  return kExitOk;
}

void print_units(const std::vector<xm::WorkUnit>& units) {
  for (const xm::WorkUnit& unit : units) {
    std::printf("work unit %d: %s\n", unit.id, xm::to_string(unit.state));
    for (const xm::JobHandle& job : unit.jobs) {
      std::printf("  %-28s %-10s %s (role %s)\n", printable(job.name).c_str(),
                  xm::to_string(job.state), printable(job.app).c_str(),
                  printable(job.role).c_str());
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
  } catch (const core::Error& e) {
    if (e.status() != SORTIE_NOT_FOUND) throw;
    std::fprintf(stderr, "sortie: %s\n", core::printable_message(e.what()).c_str());
    return std::nullopt;
  }
}

// PARTIAL when the launch stopped short (XF-27), else the units' aggregated state.
std::string experiment_state(const std::vector<xm::WorkUnit>& units,
                             const std::string& partial_reason) {
  return partial_reason.empty() ? xm::to_string(xm::state_of(units)) : "PARTIAL";
}

void print_experiment_json(xm::Experiment& experiment, const std::vector<xm::WorkUnit>& units) {
  const std::string partial_reason = experiment.partial_reason();
  session::JsonText out;
  out.begin_object().key("schema").string("sortie.cli.experiment/1");
  out.key("id").number(experiment.id()).key("title").string(experiment.title());
  out.key("state").string(experiment_state(units, partial_reason));
  out.key("partial_reason").string(partial_reason);
  out.key("units_state").string(xm::to_string(xm::state_of(units))).key("work_units").begin_array();
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
  std::optional<xm::Experiment> experiment = recorded_experiment(ctx, *id_text);
  if (!experiment) return kExitAppNotSucceeded;
  const std::vector<xm::WorkUnit> units = experiment->work_units();
  if (vm.count("json") != 0) {
    print_experiment_json(*experiment, units);
    return kExitOk;
  }
  std::printf("experiment %lld '%s'\n", static_cast<long long>(experiment->id()),
              printable(experiment->title()).c_str());
  print_units(units);
  const std::string partial_reason = experiment->partial_reason();
  if (partial_reason.empty()) {
    std::printf("state: %s\n", xm::to_string(xm::state_of(units)));
  } else {
    std::printf("state: PARTIAL (%s; the launched units are %s)\n",
                printable(partial_reason).c_str(), xm::to_string(xm::state_of(units)));
  }
  return kExitOk;
}

int cancel(session::Session& ctx, const std::string& id_text) {
  std::optional<xm::Experiment> experiment = recorded_experiment(ctx, id_text);
  if (!experiment) return kExitAppNotSucceeded;
  experiment->cancel();
  experiment->wait_until_complete();
  const std::vector<xm::WorkUnit> units = experiment->work_units();
  print_units(units);
  std::printf("experiment %lld %s\n", static_cast<long long>(experiment->id()),
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
