#include "request_input.hpp"

#include <charconv>
#include <limits>
#include <sortie/model/error.hpp>
#include <sortie/model/model.hpp>

namespace sortie::ui {
namespace {

constexpr size_t kMaxHandleLength = 512;
constexpr size_t kMaxRegexLength = 256;

// `text` cut for an error message, so a huge parameter is not echoed back whole.
std::string shown(const std::string& text) {
  constexpr size_t kShown = 64;
  return text.size() <= kShown ? text : text.substr(0, kShown) + "...";
}

constexpr int64_t kMaxTail = 100000;
constexpr int64_t kMaxReplica = 1000000;

std::string parameter(const httplib::Params& params, const char* name) {
  const auto found = params.find(name);
  return found == params.end() ? "" : found->second;
}

}  // namespace

int64_t bounded_integer(const std::string& name, const std::string& text, int64_t minimum,
                        int64_t maximum) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < minimum ||
      value > maximum) {
    throw Error::invalid_argument(name + " '" + shown(text) + "' is not an integer from " +
                                  std::to_string(minimum) + " to " + std::to_string(maximum));
  }
  return value;
}

CurveWindow curve_window_of(const httplib::Request& request) {
  CurveWindow window;
  const auto given = [&request](const char* name) {
    return request.has_param(name) && !request.get_param_value(name).empty();
  };
  constexpr int64_t kLeast = std::numeric_limits<int64_t>::min();
  constexpr int64_t kGreatest = std::numeric_limits<int64_t>::max();
  if (given("width")) {
    window.width = bounded_integer("width", request.get_param_value("width"), 1, kMaxChartWidth);
  }
  if (given("from")) {
    window.from = bounded_integer("from", request.get_param_value("from"), kLeast, kGreatest);
  }
  if (given("to")) {
    window.to = bounded_integer("to", request.get_param_value("to"), window.from, kGreatest);
  }
  return window;
}

std::string recorded_handle(session::Session& session, const std::string& text) {
  if (text.empty()) throw Error::invalid_argument("handle: is required");
  if (text.size() > kMaxHandleLength) {
    throw Error::invalid_argument("handle: longer than " + std::to_string(kMaxHandleLength) +
                                  " characters");
  }
  const std::string handle = model::parse_app_handle(text).str();
  if (!session.records().get(handle)) {
    throw Error::not_found("app " + shown(handle) + " is not in the store");
  }
  return handle;
}

std::string checked_regex(const std::string& text) {
  if (text.size() > kMaxRegexLength) {
    throw Error::invalid_argument("regex: longer than " + std::to_string(kMaxRegexLength) +
                                  " characters");
  }
  if (auto why = runner::regex_error(text)) {
    throw Error::invalid_argument("regex '" + shown(text) + "': " + *why);
  }
  return text;
}

runner::Streams streams_named(const std::string& text) {
  if (text.empty() || text == "combined") return runner::Streams::kCombined;
  if (text == "stdout") return runner::Streams::kStdout;
  if (text == "stderr") return runner::Streams::kStderr;
  throw Error::invalid_argument("stream '" + shown(text) +
                                "': expected combined, stdout or stderr");
}

int64_t resume_after(const std::string& last_event_id, const std::string& after_parameter) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (!last_event_id.empty()) return bounded_integer("Last-Event-ID", last_event_id, 0, kMax);
  if (!after_parameter.empty()) return bounded_integer("after", after_parameter, 0, kMax);
  return 0;
}

LogStreamRequest log_request_of(session::Session& session, const httplib::Params& params,
                                const std::string& already_sent) {
  LogStreamRequest log;
  log.handle = recorded_handle(session, parameter(params, "handle"));
  log.options.role = parameter(params, "role");
  if (log.options.role.size() > 253) throw Error::invalid_argument("role: too long");
  if (const std::string replica = parameter(params, "replica"); !replica.empty()) {
    log.options.replicas.insert(
        static_cast<uint32_t>(bounded_integer("replica", replica, 0, kMaxReplica)));
  }
  log.options.regex = checked_regex(parameter(params, "regex"));
  log.options.streams = streams_named(parameter(params, "stream"));
  const std::string follow = parameter(params, "follow");
  log.options.should_tail = bounded_integer("follow", follow.empty() ? "0" : follow, 0, 1) == 1;
  const std::string tail = parameter(params, "tail");
  log.tail = tail.empty() ? 0 : bounded_integer("tail", tail, 0, kMaxTail);
  log.already_sent = resume_after(already_sent, "");
  return log;
}

}  // namespace sortie::ui
