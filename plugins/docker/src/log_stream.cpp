#include "log_stream.hpp"

#include <chrono>
#include <cstdio>

#include "engine.hpp"
#include "json_fields.hpp"
#include "log_frames.hpp"

namespace sortie::docker {
namespace {

// How long one follow request may stay idle before the reader reconnects (and notices close()).
constexpr int64_t kFollowSliceMs = 1000;

// Docker's "seconds.nanoseconds" timestamp parameter.
std::string docker_timestamp(int64_t ns) {
  char text[40];
  std::snprintf(text, sizeof(text), "%lld.%09lld", static_cast<long long>(ns / 1000000000),
                static_cast<long long>(ns % 1000000000));
  return text;
}

}  // namespace

DockerLogStream::DockerLogStream(std::string socket_path, std::string api_version,
                                 std::vector<LogTarget> targets, LogRequest request)
    : socket_path_(std::move(socket_path)),
      api_version_(std::move(api_version)),
      targets_(std::move(targets)),
      request_(std::move(request)) {
  active_ = targets_.size();
  readers_.reserve(targets_.size());
  for (size_t i = 0; i < targets_.size(); ++i) {
    readers_.emplace_back([this, i] { read_container(i); });
  }
}

DockerLogStream::~DockerLogStream() {
  stop_ = true;
  for (std::thread& reader : readers_) reader.join();
}

std::string DockerLogStream::logs_path(const LogTarget& target, int64_t resume_after_ns) const {
  std::string path =
      "/containers/" + http::url_encode(target.container) +
      "/logs?timestamps=1&stdout=" + (request_.wants_stream(SORTIE_STREAM_STDOUT) ? "1" : "0") +
      "&stderr=" + (request_.wants_stream(SORTIE_STREAM_STDERR) ? "1" : "0") +
      "&follow=" + (request_.follow ? "1" : "0");
  int64_t since = request_.since_ns.value_or(0);
  if (resume_after_ns > 0 && resume_after_ns + 1 > since) since = resume_after_ns + 1;
  if (since > 0) path += "&since=" + docker_timestamp(since);
  if (request_.until_ns) path += "&until=" + docker_timestamp(*request_.until_ns);
  return path;
}

void DockerLogStream::read_container(size_t index) {
  const LogTarget& target = targets_[index];
  const LineHandler enqueue = [&](int32_t stream, int64_t timestamp, std::string_view line) {
    if (request_.since_ns && timestamp < *request_.since_ns) return;
    if (request_.until_ns && timestamp >= *request_.until_ns) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back({stream, index, timestamp, std::string(line)});
    changed_.notify_all();
  };
  std::optional<Error> failure;
  LogFrameDecoder decoder;
  try {
    Engine engine(socket_path_, api_version_);
    while (!stop_) {
      http::Request request;
      request.path = logs_path(target, decoder.last_entry_ns());
      request.timeout_ms = request_.follow ? kFollowSliceMs : -1;
      bool cut = false;
      http::Response response;
      try {
        response = engine.stream(request, [&](std::string_view chunk) {
          if (stop_) return false;
          decoder.feed(chunk, enqueue);
          return true;
        });
      } catch (const Error& error) {
        if (error.code() != Code::kDeadlineExceeded || !request_.follow) throw;
        cut = true;
      }
      if (!cut && response.status == 404) break;  // removed (cancelled) meanwhile
      if (!cut && !response.ok()) {
        throw Error::unavailable("reading the logs of container " + target.container +
                                 ": the Docker Engine answered " + std::to_string(response.status));
      }
      decoder.drop_partial_frame();
      if (!request_.follow) break;
      if (!cut) {
        // The Engine ends a follow stream when the container stops; a restart starts it again.
        const http::Response inspect =
            engine.call("GET", "/containers/" + http::url_encode(target.container) + "/json");
        if (!inspect.ok()) break;
        const rapidjson::Document state = plugins_common::parse_object(inspect.body, "container");
        const rapidjson::Value* state_value =
            plugins_common::object_member(state, "State", "container");
        const std::string status =
            state_value != nullptr
                ? plugins_common::string_member(*state_value, "Status", "container State")
                : "";
        // A container whose start failed stays "created" with the Engine's reason in its Error
        // ("could not select device driver"): it never runs, so there is nothing to wait for.
        const bool start_failed =
            status == "created" && state_value != nullptr &&
            !plugins_common::string_member(*state_value, "Error", "container State").empty();
        if ((status != "running" && status != "restarting" && status != "created" &&
             status != "paused") ||
            start_failed) {
          break;
        }
      }
    }
    decoder.finish(enqueue);
  } catch (const Error& error) {
    failure = error;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  if (failure && !error_) error_ = failure;
  --active_;
  changed_.notify_all();
}

bool DockerLogStream::next(int64_t timeout_ms, const LogSink& sink) {
  std::deque<QueuedLine> lines;
  bool ended = false;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    const auto ready = [&] { return !queue_.empty() || active_ == 0; };
    if (timeout_ms < 0) {
      changed_.wait(lock, ready);
    } else {
      changed_.wait_for(lock, std::chrono::milliseconds(timeout_ms), ready);
    }
    lines.swap(queue_);
    ended = active_ == 0;
    if (ended && lines.empty() && error_) throw *error_;
  }
  for (const QueuedLine& line : lines) {
    LogLine out;
    out.stream = line.stream;
    out.role = targets_[line.target].role;
    out.replica_id = targets_[line.target].replica_id;
    out.timestamp_ns = line.timestamp_ns;
    out.data = line.data;
    sink.emit(out);
  }
  return !ended || !lines.empty();
}

}  // namespace sortie::docker
