#include "image_transfer.hpp"

#include <sortie/plugin.hpp>

#include "json_fields.hpp"

namespace sortie::docker {
namespace {

void info(const std::string& text) { Host::log(SORTIE_LOG_INFO, text); }

// X-Registry-Auth for anonymous access: base64 of "{}". The Engine refuses a push without it.
constexpr const char* kAnonymousAuth = "e30=";

}  // namespace

ProgressReader::ProgressReader(std::string prefix) : prefix_(std::move(prefix)) {}

void ProgressReader::feed(std::string_view chunk) {
  buffer_.append(chunk);
  size_t start = 0;
  for (size_t newline = buffer_.find('\n', start); newline != std::string::npos;
       newline = buffer_.find('\n', start)) {
    message(std::string_view(buffer_).substr(start, newline - start));
    start = newline + 1;
  }
  buffer_.erase(0, start);
}

void ProgressReader::finish() {
  if (!buffer_.empty()) message(buffer_);
  buffer_.clear();
}

http::Response ProgressReader::stream(Engine& engine, const http::Request& request) {
  const http::Response response = engine.stream(request, [&](std::string_view chunk) {
    feed(chunk);
    return true;
  });
  finish();
  return response;
}

std::string ProgressReader::failure(const http::Response& response) const {
  return error_.empty() ? engine_message(response.body) : error_;
}

void ProgressReader::message(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
  if (line.empty()) return;
  rapidjson::Document document;
  document.Parse(line.data(), line.size());
  if (document.HasParseError() || !document.IsObject()) {
    info(prefix_ + ": " + std::string(line));
    return;
  }
  const std::string error = plugins_common::string_member(document, "error", "progress");
  if (!error.empty()) {
    if (error_.empty()) error_ = error;
    return;
  }
  if (const rapidjson::Value* aux = plugins_common::object_member(document, "aux", "progress")) {
    const std::string id = plugins_common::string_member(*aux, "ID", "progress aux");
    if (!id.empty()) built_id_ = id;
    return;
  }
  std::string stream = plugins_common::string_member(document, "stream", "progress");
  while (!stream.empty() && (stream.back() == '\n' || stream.back() == '\r')) stream.pop_back();
  if (!stream.empty()) {
    info(prefix_ + ": " + stream);
    for (size_t start = 0; start < stream.size();) {
      size_t end = stream.find('\n', start);
      if (end == std::string::npos) end = stream.size();
      recent_output_.push_back(stream.substr(start, end - start));
      if (recent_output_.size() > kRecentLines) recent_output_.pop_front();
      start = end + 1;
    }
    return;
  }
  const std::string status = plugins_common::string_member(document, "status", "progress");
  if (status.empty()) return;
  const std::string id = plugins_common::string_member(document, "id", "progress");
  std::string& last = last_status_[id];
  if (last == status) return;  // a byte-count update of a status already shown
  last = status;
  info(prefix_ + ": " + (id.empty() ? "" : id + ": ") + status);
}

std::string local_image_id(Engine& engine, const std::string& image) {
  const http::Response response =
      engine.call("GET", "/images/" + http::url_encode(image) + "/json");
  if (response.status == 404) return "";
  if (!response.ok()) {
    throw Error::unavailable("inspecting image " + image + ": the Docker Engine answered " +
                             std::to_string(response.status) + ": " +
                             engine_message(response.body));
  }
  const std::string what = "image " + image;
  const std::string id =
      plugins_common::string_member(plugins_common::parse_object(response.body, what), "Id", what);
  if (id.empty()) throw Error::internal("the Docker Engine gave " + what + " no Id");
  return id;
}

bool image_exists(Engine& engine, const std::string& image) {
  return !local_image_id(engine, image).empty();
}

void ensure_image(Engine& engine, const std::string& image) {
  if (image_exists(engine, image)) return;
  const ImageReference reference = parse_image_reference(image);
  std::string path = "/images/create?fromImage=" + http::url_encode(reference.repository);
  if (!reference.digest.empty()) {
    path = "/images/create?fromImage=" + http::url_encode(image);
  } else {
    path += "&tag=" + http::url_encode(reference.tag);
  }
  info("image " + image + " is not local; pulling it");
  ProgressReader progress("pulling " + image);
  http::Request request;
  request.method = "POST";
  request.path = path;
  request.headers = {{"X-Registry-Auth", kAnonymousAuth}};
  const http::Response response = progress.stream(engine, request);
  if (!response.ok() || !progress.error().empty()) {
    throw Error(
        response.status == 404 ? Code::kNotFound : Code::kUnavailable,
        "image " + image + " is not local and pulling it failed: " + progress.failure(response));
  }
}

void push_image(Engine& engine, const std::string& source, const std::string& repository,
                const std::string& tag) {
  engine.expect("POST",
                "/images/" + http::url_encode(source) +
                    "/tag?repo=" + http::url_encode(repository) + "&tag=" + http::url_encode(tag),
                "tagging " + source + " as " + repository + ":" + tag);
  const std::string target = repository + ":" + tag;
  info("pushing " + target);
  ProgressReader progress("pushing " + target);
  http::Request request;
  request.method = "POST";
  request.path = "/images/" + http::url_encode(repository) + "/push?tag=" + http::url_encode(tag);
  request.headers = {{"X-Registry-Auth", kAnonymousAuth}};
  const http::Response response = progress.stream(engine, request);
  if (!response.ok() || !progress.error().empty()) {
    throw Error::unavailable("pushing " + target + " failed: " + progress.failure(response) +
                             " (is the registry up, and does the Engine trust it?)");
  }
}

}  // namespace sortie::docker
