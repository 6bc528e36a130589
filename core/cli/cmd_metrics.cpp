// `sortie metrics HANDLE [--key KEY] [--json] [-f]`: what an app's jobs measured
// (docs/experiments.md, "Measurements"), read from its logs into the store first.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <map>
#include <sortie/model/error.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/app_waiter.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/measurement_collector.hpp>
#include <thread>
#include <tuple>

#include "app_report.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "measurement_text.hpp"
#include "printable.hpp"

namespace po = boost::program_options;

namespace sortie::cli {
namespace {

using SeriesKey = std::tuple<std::string, uint32_t, int32_t, std::string>;

void point_json(session::JsonText& json, const store::SeriesPoint& point) {
  json.begin_object()
      .key("index")
      .number(point.index)
      .key("step")
      .number(point.step)
      .key("at")
      .number(point.at)
      .key("value")
      .number(point.value)
      .end_object();
}

void print_json(const std::string& handle, const std::vector<store::MeasurementSeries>& series) {
  session::JsonText json;
  json.begin_object().key("schema").string("sortie.cli.metrics/1").key("handle").string(handle);
  json.key("series").begin_array();
  for (const store::MeasurementSeries& one : series) {
    json.begin_object().key("role").string(one.role).key("replica").number(int64_t{one.replica_id});
    rank_json(json, one.rank);
    json.key("key").string(one.key).key("count").number(one.count);
    for (const auto& [name, point] : {std::pair{"first", &one.first},
                                      {"last", &one.last},
                                      {"min", &one.min},
                                      {"max", &one.max}}) {
      json.key(name);
      point_json(json, *point);
    }
    json.key("points").begin_array();
    for (const store::SeriesPoint& point : one.curve) point_json(json, point);
    json.end_array().end_object();
  }
  json.end_array().end_object();
  std::printf("%s\n", json.str().c_str());
}

// Prints the points of `series` above those already printed, one line each.
void print_new_points(const std::vector<store::MeasurementSeries>& series,
                      std::map<SeriesKey, int64_t>& printed) {
  for (const store::MeasurementSeries& one : series) {
    auto [last, added] = printed.try_emplace({one.role, one.replica_id, one.rank, one.key}, -1);
    const std::string source = series_source_text(one);
    const std::string key = printable(one.key);
    for (const store::SeriesPoint& point : one.curve) {
      if (point.index <= last->second) continue;
      std::printf("%s  %s  step %lld  %s\n", source.c_str(), key.c_str(),
                  static_cast<long long>(point.step), value_text(point.value).c_str());
      last->second = point.index;
    }
  }
  std::fflush(stdout);
}

}  // namespace

int cmd_metrics(session::Session& ctx, const Args& args) {
  std::string key;
  po::options_description desc("metrics options");
  desc.add_options()("help,h", "show this help")("key", po::value(&key), "only this key's series")(
      "json", "print JSON (docs/cli-json.md)")("follow,f",
                                               "keep printing new points until the app ends");
  po::variables_map vm;
  const auto handle = parse_positional_command(
      "usage: sortie metrics SCHEDULER://SESSION/APP_ID [--key KEY] [--json] [-f]", desc, "HANDLE",
      args, vm);
  if (!handle) return kExitOk;
  const bool follow = vm.count("follow") != 0;
  if (follow && vm.count("json") != 0) {
    throw Error::invalid_argument("--json and --follow cannot be combined; drop one");
  }
  session::AppLookup app = session::lookup_app(ctx, *handle);
  if (!app.status) return report_unknown_app(*handle);
  session::collect_measurements(ctx, app);
  const std::string recorded = app.handle.str();
  if (vm.count("json") != 0) {
    print_json(recorded, ctx.records().measurements(recorded, key));
    return kExitOk;
  }
  std::map<SeriesKey, int64_t> printed;
  const std::vector<store::MeasurementSeries> series = ctx.records().measurements(recorded, key);
  print_new_points(series, printed);
  if (series.empty() && !follow) {
    std::fprintf(stderr,
                 "sortie metrics: %s measured nothing%s: its roles print key=value pairs read "
                 "when they set SORTIE_METRICS_PATTERN, or append JSON lines to "
                 "$SORTIE_METRICS_FILE (docs/experiments.md, \"Measurements\")\n",
                 recorded.c_str(),
                 key.empty() ? "" : (" under the key '" + printable(key) + "'").c_str());
  }
  if (!follow) return kExitOk;
  session::install_interrupt_handlers();
  const auto print_more = [&] {
    print_new_points(ctx.records().measurements(recorded, key), printed);
    return session::interrupted() == 0;
  };
  // One read of the logs as they grow; when another reader records them too, polls instead.
  if (!model::is_terminal(app.status->state) &&
      session::follow_measurements(ctx, app, print_more)) {
    return session::interrupted() != 0 ? kExitInterrupted : kExitOk;
  }
  while (!model::is_terminal(app.status->state)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    if (session::interrupted() != 0) return kExitInterrupted;
    app = session::lookup_app(ctx, recorded);
    if (!app.status) break;
    session::collect_measurements(ctx, app);
    print_more();
  }
  return kExitOk;
}

}  // namespace sortie::cli
