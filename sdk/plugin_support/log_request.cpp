#include <sortie/plugin_abi.h>

#include <sortie/log_request.hpp>

#include "payload_reader.hpp"
#include "payload_writer.hpp"

namespace sortie {

bool LogRequest::selects(std::string_view role_name, int64_t replica_id) const {
  return (role.empty() || role == role_name) && (!replica || *replica == replica_id);
}

bool LogRequest::in_window(int64_t timestamp_ns) const {
  return (!since_ns || timestamp_ns >= *since_ns) && (!until_ns || timestamp_ns <= *until_ns);
}

bool LogRequest::wants_stream(int32_t stream) const {
  switch (streams) {
    case LogStreams::kStdout:
      return stream == SORTIE_STREAM_STDOUT;
    case LogStreams::kStderr:
      return stream == SORTIE_STREAM_STDERR;
    case LogStreams::kMetrics:
      return stream == SORTIE_STREAM_METRICS;
    case LogStreams::kCombined:
      break;
  }
  return stream != SORTIE_STREAM_METRICS;
}

std::string_view log_streams_name(LogStreams streams) noexcept {
  switch (streams) {
    case LogStreams::kStdout:
      return "stdout";
    case LogStreams::kStderr:
      return "stderr";
    case LogStreams::kMetrics:
      return "metrics";
    case LogStreams::kCombined:
      break;
  }
  return "combined";
}

LogRequest read_log_request(std::string_view json) {
  using namespace payload;
  LogRequest request;
  if (json.empty()) return request;
  const rapidjson::Document document = parse_object(json, "sortie.log_request/1");
  request.role = read_string(document, "role", "");
  if (find(document, "replica") != nullptr) {
    request.replica = read_int(document, "replica", "", 0);
    if (*request.replica < 0) fail("replica", "must be an integer >= 0");
  }
  const std::string streams = read_string(document, "streams", "", "combined");
  if (streams == "stdout") {
    request.streams = LogStreams::kStdout;
  } else if (streams == "stderr") {
    request.streams = LogStreams::kStderr;
  } else if (streams == "metrics") {
    request.streams = LogStreams::kMetrics;
  } else if (streams != "combined") {
    fail("streams",
         "expected \"stdout\", \"stderr\", \"combined\" or \"metrics\", got \"" + streams + "\"");
  }
  if (find(document, "since") != nullptr) request.since_ns = read_int(document, "since", "", 0);
  if (find(document, "until") != nullptr) request.until_ns = read_int(document, "until", "", 0);
  if (find(document, "tail") != nullptr) {
    request.tail = read_int(document, "tail", "", 0);
    if (*request.tail < 0) fail("tail", "must be an integer >= 0");
  }
  request.follow = read_bool(document, "follow", "", false);
  return request;
}

std::string write_log_request(const LogRequest& request) {
  payload::PayloadWriter w;
  w.json().StartObject();
  w.member("schema", "sortie.log_request/1");
  if (!request.role.empty()) w.member("role", request.role);
  if (request.replica) w.member("replica", *request.replica);
  w.member("streams", log_streams_name(request.streams));
  if (request.since_ns) w.member("since", *request.since_ns);
  if (request.until_ns) w.member("until", *request.until_ns);
  if (request.tail) w.member("tail", *request.tail);
  w.key("follow");
  w.json().Bool(request.follow);
  w.json().EndObject();
  return w.text();
}

}  // namespace sortie
