// Reads an app's measurements from its logs into the store (measurement_collector.hpp).
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/line_regex.hpp>
#include <sortie/session/measurement_collector.hpp>
#include <sortie/session/measurement_lines.hpp>
#include <tuple>
#include <vector>

namespace sortie::session {
namespace {

using SourceKey = std::tuple<std::string, uint32_t, std::string>;  // role, replica, stream
using SeriesKey = std::tuple<std::string, uint32_t, std::string>;  // role, replica, key

// How a role's log lines are read for measurements.
struct LinePattern {
  std::unique_ptr<LineRegex> regex;
  std::string step_key;
};

std::map<std::string, LinePattern> line_patterns(const std::string& appdef_json,
                                                 const std::string& handle) {
  std::map<std::string, LinePattern> patterns;
  const core::AppDef app = core::appdef_from_json(appdef_json, "the record of app " + handle);
  for (const core::Role& role : app.roles) {
    const auto pattern = role.env.find(kMetricsPatternVariable);
    if (pattern == role.env.end() || pattern->second.empty()) continue;
    const std::string text =
        pattern->second == "default" ? kDefaultMetricsPattern : pattern->second;
    const auto step_key = role.env.find(kMetricsStepKeyVariable);
    patterns.emplace(
        role.name,
        LinePattern{std::make_unique<LineRegex>(
                        text, "role '" + role.name + "': " + kMetricsPatternVariable),
                    step_key == role.env.end() || step_key->second.empty() ? std::string("step")
                                                                           : step_key->second});
  }
  return patterns;
}

const char* stream_name(int32_t stream) {
  switch (stream) {
    case SORTIE_STREAM_STDERR:
      return "stderr";
    case SORTIE_STREAM_METRICS:
      return "metrics";
    default:
      return "stdout";
  }
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// One pass over an app's logs: which lines are new, and the points they hold.
class Reading {
 public:
  Reading(const core::MeasurementProgress& from, bool ended, std::map<SeriesKey, int64_t> counts)
      : ended_(ended), counts_(std::move(counts)) {
    for (const core::MeasurementSource& source : from.sources) {
      sources_[{source.role, source.replica_id, source.stream}].lines = source.lines;
    }
  }

  // Hands `line` over when it is new and whole, or nothing.
  void take(const core::LogLineView& line, const std::function<void(std::string_view)>& on_new) {
    Source& source = sources_[{std::string(line.role), line.replica_id, stream_name(line.stream)}];
    if (source.held) return;
    if (source.seen++ < source.lines) return;
    // A line still being written (no newline yet) is read next time, and so is what follows it.
    if (!ended_ && (line.data.empty() || line.data.back() != '\n')) {
      source.held = true;
      return;
    }
    ++source.lines;
    on_new(line.data);
  }

  // Adds the values of one line; `step_key`'s value, when there, is their step, else each
  // series' position.
  void add(const core::LogLineView& line, const MeasuredValues& values,
           const std::string& step_key) {
    std::optional<int64_t> step;
    for (const auto& [key, value] : values) {
      if (key == step_key && std::fabs(value) < 9e18) step = static_cast<int64_t>(value);
    }
    const int64_t at = line.timestamp_ns != 0 ? line.timestamp_ns : now_ns();
    for (const auto& [key, value] : values) {
      if (key == step_key) continue;
      int64_t& count = counts_[{std::string(line.role), line.replica_id, key}];
      points_.push_back(core::MeasurementPoint{std::string(line.role), line.replica_id, key,
                                               step.value_or(count), at, value});
      ++count;
    }
  }

  core::MeasurementProgress progress() const {
    core::MeasurementProgress progress;
    for (const auto& [key, source] : sources_) {
      if (source.lines == 0) continue;
      progress.sources.push_back(core::MeasurementSource{std::get<0>(key), std::get<1>(key),
                                                         std::get<2>(key), source.lines});
    }
    progress.finished = ended_;
    return progress;
  }
  const std::vector<core::MeasurementPoint>& points() const { return points_; }

 private:
  struct Source {
    int64_t lines = 0;  // read before and now
    int64_t seen = 0;   // handed over in this pass
    bool held = false;
  };
  bool ended_;
  std::map<SeriesKey, int64_t> counts_;
  std::map<SourceKey, Source> sources_;
  std::vector<core::MeasurementPoint> points_;
};

std::string log_request(const char* streams) {
  JsonText request;
  request.begin_object()
      .key("schema")
      .string("sortie.log_request/1")
      .key("streams")
      .string(streams)
      .key("follow")
      .boolean(false)
      .end_object();
  return request.str();
}

// Hands every line of the app's stream `streams` to `on_line`, as its scheduler has them now.
void read_stream(const AppLookup& app, const char* streams,
                 const std::function<void(const core::LogLineView&)>& on_line) {
  auto reader = app.loaded_scheduler().log_open(app.handle.app_id, log_request(streams));
  while (reader->next(500, on_line)) {
  }
}

}  // namespace

void collect_measurements(Session& session, const AppLookup& app) {
  const std::string handle = app.handle.str();
  const core::AppStore& records = session.records();
  const auto record = records.get(handle);
  if (!record || !app.status || !app.scheduler) return;
  const core::MeasurementProgress from = records.measurement_progress(handle);
  if (from.finished) return;
  const bool ended = core::is_terminal(app.status->state);
  std::map<SeriesKey, int64_t> counts;
  for (const core::MeasurementSeries& series : records.measurements(handle, "", false)) {
    counts[{series.role, series.replica_id, series.key}] = series.count;
  }
  Reading reading(from, ended, std::move(counts));
  const std::map<std::string, LinePattern> patterns = line_patterns(record->appdef_json, handle);
  std::string text;
  if (!patterns.empty()) {
    read_stream(app, "combined", [&](const core::LogLineView& line) {
      const auto pattern = patterns.find(std::string(line.role));
      if (pattern == patterns.end()) return;
      reading.take(line, [&](std::string_view data) {
        text.assign(data);
        if (!text.empty() && text.back() == '\n') text.pop_back();
        if (!pattern->second.regex->matches(text)) return;
        reading.add(line, log_line_values(text), pattern->second.step_key);
      });
    });
  }
  try {
    read_stream(app, "metrics", [&](const core::LogLineView& line) {
      if (line.stream != SORTIE_STREAM_METRICS) return;
      reading.take(
          line, [&](std::string_view data) { reading.add(line, json_line_values(data), "step"); });
    });
  } catch (const core::Error& error) {
    // A scheduler that sets no SORTIE_METRICS_FILE refuses the stream (docs/payloads.md P-10).
    if (error.code() != Code::kInvalidArgument && error.code() != Code::kUnimplemented) throw;
  }
  session.store().record_measurements(handle, from, reading.progress(), reading.points());
}

}  // namespace sortie::session
