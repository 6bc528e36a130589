// Runner::log_lines: an app's output as whole lines, filtered by replica and regex here so a
// match never depends on how a backend chunked its output.
#include <sortie/log_request.hpp>
#include <sortie/model/error.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/line_regex.hpp>

#include "runner_impl.hpp"

namespace sortie::runner {

namespace {

LogStreams log_streams(Streams streams) {
  switch (streams) {
    case Streams::kStdout:
      return LogStreams::kStdout;
    case Streams::kStderr:
      return LogStreams::kStderr;
    case Streams::kCombined:
      break;
  }
  return LogStreams::kCombined;
}

int64_t ns_since_epoch(std::chrono::system_clock::time_point time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}

std::string log_request(const LogOptions& options) {
  LogRequest request;
  request.role = options.role;
  if (options.replicas.size() == 1) request.replica = *options.replicas.begin();
  request.streams = log_streams(options.streams);
  if (options.since) request.since_ns = ns_since_epoch(*options.since);
  if (options.until) request.until_ns = ns_since_epoch(*options.until);
  request.follow = options.should_tail;
  return write_log_request(request);
}

}  // namespace

std::optional<std::string> regex_error(const std::string& pattern) {
  return session::regex_error(pattern);
}

bool Runner::log_lines(const std::string& handle, const LogOptions& options,
                       const std::function<bool(const std::vector<LogLine>&)>& on_lines) {
  std::optional<session::LineRegex> regex;
  if (!options.regex.empty()) regex.emplace(options.regex, "regex");
  const session::AppLookup& app = impl_->known_app(handle);
  if (!app.status) {
    throw unknown_app(app.handle.str());
  }
  auto reader = app.loaded_scheduler().log_open(app.handle.app_id, log_request(options));
  std::vector<LogLine> batch;
  std::string body;
  const auto on_line = [&](const plugin_host::LogLineView& line) {
    if (!options.replicas.empty() && options.replicas.count(line.replica_id) == 0) return;
    if (regex) {
      body.assign(line.data);
      if (!body.empty() && body.back() == '\n') body.pop_back();
      if (!regex->matches(body)) return;
    }
    batch.push_back(LogLine{std::string(line.role), line.replica_id,
                            line.stream == SORTIE_STREAM_STDERR, line.timestamp_ns,
                            std::string(line.data)});
  };
  for (;;) {
    batch.clear();
    const bool more = reader->next(500, on_line);
    if (!on_lines(batch)) return false;
    if (!more) return true;
  }
}

std::vector<LogLine> Runner::log_lines(const std::string& handle, const LogOptions& options) {
  std::vector<LogLine> lines;
  log_lines(handle, options, [&](const std::vector<LogLine>& batch) {
    lines.insert(lines.end(), batch.begin(), batch.end());
    return true;
  });
  return lines;
}

}  // namespace sortie::runner
