// Reads an app's measurements from its logs into the store (measurement_collector.hpp).
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <sortie/log_request.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/session/line_regex.hpp>
#include <sortie/session/measurement_collector.hpp>
#include <sortie/session/measurement_lines.hpp>
#include <tuple>
#include <utility>
#include <vector>

namespace sortie::session {
namespace {

using SourceKey = std::tuple<std::string, uint32_t, std::string>;  // role, replica, stream
// role, replica, rank, key
using SeriesKey = std::tuple<std::string, uint32_t, int32_t, std::string>;

// How a role's log lines are read for measurements.
struct LinePattern {
  std::unique_ptr<LineRegex> regex;
  std::string step_key;
};

std::map<std::string, LinePattern> line_patterns(const std::string& appdef_json,
                                                 const std::string& handle) {
  std::map<std::string, LinePattern> patterns;
  const AppDef app = model::appdef_from_json(appdef_json, "the record of app " + handle);
  for (const Role& role : app.roles) {
    const std::string* pattern = find_value(role.env, kMetricsPatternVariable);
    if (pattern == nullptr || pattern->empty()) continue;
    const std::string text = *pattern == "default" ? kDefaultMetricsPattern : *pattern;
    const std::string* step_key = find_value(role.env, kMetricsStepKeyVariable);
    patterns.emplace(
        role.name,
        LinePattern{std::make_unique<LineRegex>(
                        text, "role '" + role.name + "': " + kMetricsPatternVariable),
                    step_key == nullptr || step_key->empty() ? std::string("step") : *step_key});
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

// How many points a reading of a long log holds before it records them.
constexpr size_t kPointsPerRecord = 100'000;

// One pass over an app's logs: which lines are new, and the points they hold.
class Reading {
 public:
  // `whole_lines`: every line handed over is whole (a followed stream hands over a last line
  // without a newline only once its writer is gone).
  Reading(const store::MeasurementProgress& from, bool whole_lines,
          std::map<SeriesKey, int64_t> counts)
      : whole_lines_(whole_lines), counts_(std::move(counts)) {
    for (const store::MeasurementSource& source : from.sources) {
      sources_[{source.role, source.replica_id, source.stream}].lines = source.lines;
    }
  }

  // Hands `line` over when it is new and whole, or nothing.
  void take(const plugin_host::LogLineView& line,
            const std::function<void(std::string_view)>& on_new) {
    Source& source = source_of(line);
    if (source.held) return;
    if (source.seen++ < source.lines) return;
    // A line still being written (no newline yet) is read next time, and so is what follows it.
    if (!whole_lines_ && (line.data.empty() || line.data.back() != '\n')) {
      source.held = true;
      return;
    }
    ++source.lines;
    on_new(line.data);
  }

  // Adds the values of one line of `rank` (store::kNoRank: none); `step_key`'s value, when
  // there, is their step, else each series' position.
  void add(const plugin_host::LogLineView& line, const MeasuredValues& values,
           const std::string& step_key, int32_t rank) {
    std::optional<int64_t> step;
    for (const auto& [key, value] : values) {
      if (key == step_key && std::fabs(value) < 9e18) step = static_cast<int64_t>(value);
    }
    const int64_t at = line.timestamp_ns != 0 ? line.timestamp_ns : now_ns();
    for (const auto& [key, value] : values) {
      if (key == step_key) continue;
      int64_t& count = counts_[{std::string(line.role), line.replica_id, rank, key}];
      points_.push_back(store::MeasurementPoint{std::string(line.role), line.replica_id, key,
                                                step.value_or(count), at, value, rank});
      ++count;
    }
  }

  store::MeasurementProgress progress(bool finished) const {
    store::MeasurementProgress progress;
    for (const auto& [key, source] : sources_) {
      if (source.lines == 0) continue;
      progress.sources.push_back(store::MeasurementSource{std::get<0>(key), std::get<1>(key),
                                                          std::get<2>(key), source.lines});
    }
    progress.finished = finished;
    return progress;
  }
  // The points added since the last call.
  std::vector<store::MeasurementPoint> take_points() { return std::exchange(points_, {}); }
  size_t pending() const { return points_.size(); }

 private:
  struct Source {
    int64_t lines = 0;  // read before and now
    int64_t seen = 0;   // handed over in this pass
    bool held = false;
  };
  // Consecutive lines mostly come from one source: it is looked up again only when it changes.
  Source& source_of(const plugin_host::LogLineView& line) {
    const char* stream = stream_name(line.stream);
    if (last_ == nullptr || last_role_ != line.role || last_replica_ != line.replica_id ||
        last_stream_ != stream) {
      last_role_.assign(line.role);
      last_replica_ = line.replica_id;
      last_stream_ = stream;
      last_ = &sources_[{last_role_, last_replica_, stream}];
    }
    return *last_;
  }
  bool whole_lines_;
  std::map<SeriesKey, int64_t> counts_;
  std::map<SourceKey, Source> sources_;
  std::vector<store::MeasurementPoint> points_;
  Source* last_ = nullptr;
  std::string last_role_;
  uint32_t last_replica_ = 0;
  const char* last_stream_ = nullptr;
};

std::string log_request(LogStreams streams, bool follow) {
  LogRequest request;
  request.streams = streams;
  request.follow = follow;
  return write_log_request(request);
}

// Whether `error` is a scheduler's refusal of the stream "metrics": one that sets no
// SORTIE_METRICS_FILE (docs/payloads.md P-10).
bool refuses_metrics(const Error& error) {
  return error.code() == Code::kInvalidArgument || error.code() == Code::kUnimplemented;
}

// Whether `error` is a scheduler's refusal to read a file the job made something else than a
// regular file (a FIFO, a link to a device: docs/payloads.md P-10): that stream is skipped with a
// note, and the app's measurements stay unfinished.
bool refuses_file(const Error& error) { return error.code() == Code::kFailedPrecondition; }

// Where an app's measurements are read from, and how far they were read.
class AppReading {
 public:
  AppReading(Session& session, const AppLookup& app)
      : session_(session), app_(app), handle_(app.handle.str()) {
    const store::AppStore& records = session.records();
    const auto record = records.get(handle_);
    if (!record || !app.status || !app.scheduler) return;
    from_ = records.measurement_progress(handle_);
    if (from_.finished) return;
    for (const store::MeasurementSeries& series : records.measurements(handle_, "", false)) {
      counts_[{series.role, series.replica_id, series.rank, series.key}] = series.count;
    }
    patterns_ = line_patterns(record->appdef_json, handle_);
    readable_ = true;
  }

  bool readable() const { return readable_; }
  const std::string& handle() const { return handle_; }
  const std::map<std::string, LinePattern>& patterns() const { return patterns_; }

  // Opens the stream `streams` of the app; nullptr for the stream "metrics" of a scheduler that
  // does not serve it.
  std::unique_ptr<plugin_host::LogReader> open(LogStreams streams, bool follow) const {
    try {
      return app_.loaded_scheduler().log_open(app_.handle.app_id, log_request(streams, follow));
    } catch (const Error& error) {
      if (streams != LogStreams::kMetrics || !refuses_metrics(error)) throw;
      return nullptr;
    }
  }

  // The handler of the lines of the stream `streams` (combined or metrics).
  std::function<void(const plugin_host::LogLineView&)> handler(Reading& reading, bool metrics) {
    if (metrics) {
      return [&reading](const plugin_host::LogLineView& line) {
        if (line.stream != SORTIE_STREAM_METRICS) return;
        reading.take(line, [&](std::string_view data) {
          reading.add(line, json_line_values(data), "step", store::kNoRank);
        });
      };
    }
    return [this, &reading](const plugin_host::LogLineView& line) {
      const auto pattern = patterns_.find(std::string(line.role));
      if (pattern == patterns_.end()) return;
      reading.take(line, [&](std::string_view data) {
        const RankedLine ranked = ranked_line(data);
        text_.assign(ranked.text);
        if (!text_.empty() && text_.back() == '\n') text_.pop_back();
        if (!pattern->second.regex->matches(text_)) return;
        reading.add(line, log_line_values(text_), pattern->second.step_key, ranked.rank);
      });
    };
  }

  Reading start(bool whole_lines) const { return Reading(from_, whole_lines, counts_); }

  // Tells the session's on_measurements_note that a stream was skipped.
  void note(const Error& error) const {
    const auto& on_note = session_.options().on_measurements_note;
    if (on_note) on_note("measurements of " + handle_ + " not read: " + error.what());
  }

  // Records what `reading` read since the last record; false when another process recorded
  // those lines first.
  bool record(Reading& reading, bool finished) {
    const store::MeasurementProgress to = reading.progress(finished);
    if (!session_.store().record_measurements(handle_, from_, to, reading.take_points())) {
      return false;
    }
    from_ = to;
    return true;
  }

 private:
  Session& session_;
  const AppLookup& app_;
  std::string handle_;
  store::MeasurementProgress from_;
  std::map<SeriesKey, int64_t> counts_;
  std::map<std::string, LinePattern> patterns_;
  bool readable_ = false;
  std::string text_;
};

}  // namespace

void collect_measurements(Session& session, const AppLookup& app) {
  AppReading app_reading(session, app);
  if (!app_reading.readable()) return;
  const bool ended = model::is_terminal(app.status->state);
  Reading reading = app_reading.start(ended);
  bool skipped = false;
  for (const bool metrics : {false, true}) {
    if (!metrics && app_reading.patterns().empty()) continue;
    // Recorded as they come, so a long log never holds all its points in memory; when another
    // process recorded the same lines meanwhile, it finishes them.
    bool overtaken = false;
    const auto handle_line = app_reading.handler(reading, metrics);
    const auto on_line = [&](const plugin_host::LogLineView& line) {
      if (overtaken) return;
      handle_line(line);
      overtaken = reading.pending() >= kPointsPerRecord && !app_reading.record(reading, false);
    };
    try {
      auto reader = app_reading.open(metrics ? LogStreams::kMetrics : LogStreams::kCombined, false);
      while (reader && !overtaken && reader->next(500, on_line)) {
      }
      if (overtaken) return;
    } catch (const Error& error) {
      if (metrics && refuses_metrics(error)) continue;
      if (!refuses_file(error)) throw;
      app_reading.note(error);
      skipped = true;
    }
  }
  app_reading.record(reading, ended && !skipped);
}

bool follow_measurements(Session& session, const AppLookup& app,
                         const std::function<bool()>& on_recorded) {
  AppReading app_reading(session, app);
  if (!app_reading.readable()) return false;
  Reading reading = app_reading.start(true);
  struct Followed {
    std::unique_ptr<plugin_host::LogReader> reader;
    std::function<void(const plugin_host::LogLineView&)> on_line;
    bool metrics = false;
  };
  std::vector<Followed> followed;
  bool skipped = false;
  // A stream the scheduler refuses is skipped: "metrics" unserved, or a file that is not regular.
  const auto skip = [&](const Error& error, bool metrics) {
    if (metrics && refuses_metrics(error)) return;
    if (!refuses_file(error)) throw error;
    app_reading.note(error);
    skipped = true;
  };
  for (const bool metrics : {false, true}) {
    if (!metrics && app_reading.patterns().empty()) continue;
    try {
      if (auto reader =
              app_reading.open(metrics ? LogStreams::kMetrics : LogStreams::kCombined, true)) {
        followed.push_back({std::move(reader), app_reading.handler(reading, metrics), metrics});
      }
    } catch (const Error& error) {
      skip(error, metrics);
    }
  }
  if (followed.empty()) return false;
  auto recorded_at = std::chrono::steady_clock::now();
  while (!followed.empty()) {
    for (auto stream = followed.begin(); stream != followed.end();) {
      bool more = false;
      try {
        more = stream->reader->next(100, stream->on_line);
      } catch (const Error& error) {
        skip(error, stream->metrics);
      }
      stream = more ? stream + 1 : followed.erase(stream);
    }
    const auto now = std::chrono::steady_clock::now();
    if (followed.empty() || now - recorded_at >= std::chrono::milliseconds(500)) {
      if (!app_reading.record(reading, followed.empty() && !skipped)) return false;
      recorded_at = now;
      if (!on_recorded()) return true;
    }
  }
  return true;
}

}  // namespace sortie::session
