#include "engine.hpp"

#include <cctype>
#include <cstdlib>
#include <sortie/plugin.hpp>

#include "http_status.hpp"
#include "json_fields.hpp"

namespace sortie::docker {
namespace {

// "1.41" -> {1, 41}; malformed parts read as 0.
std::pair<int, int> version_parts(std::string_view version) {
  const size_t dot = version.find('.');
  const auto number = [](std::string_view text) {
    int value = 0;
    for (const char c : text) {
      if (c < '0' || c > '9') return 0;
      value = value * 10 + (c - '0');
    }
    return value;
  };
  if (dot == std::string_view::npos) return {number(version), 0};
  return {number(version.substr(0, dot)), number(version.substr(dot + 1))};
}

}  // namespace

std::string docker_socket_from_environment() {
  const char* host = std::getenv("DOCKER_HOST");
  if (host == nullptr || *host == '\0') return "/var/run/docker.sock";
  const std::string_view text(host);
  constexpr std::string_view kUnix = "unix://";
  if (text.substr(0, kUnix.size()) != kUnix || text.size() == kUnix.size()) {
    throw Error::invalid_argument(
        "DOCKER_HOST='" + std::string(text) +
        "': local_docker talks to the Docker Engine over a unix socket only; set "
        "DOCKER_HOST=unix:///path/to/docker.sock or unset it for /var/run/docker.sock");
  }
  return std::string(text.substr(kUnix.size()));
}

std::string negotiate_api_version(std::string_view daemon_version) {
  const auto daemon = version_parts(daemon_version);
  const auto newest = version_parts(kNewestApiVersion);
  const auto oldest = version_parts(kOldestApiVersion);
  if (daemon < oldest) {
    throw Error::failed_precondition(
        "the Docker Engine speaks API " + std::string(daemon_version) + ", older than " +
        std::string(kOldestApiVersion) +
        ", the oldest local_docker supports (Docker 19.03); upgrade Docker");
  }
  return std::string(daemon < newest ? daemon_version : kNewestApiVersion);
}

std::string engine_message(const std::string& body) {
  rapidjson::Document document;
  document.Parse(body.data(), body.size());
  if (!document.HasParseError() && document.IsObject()) {
    const auto it = document.FindMember("message");
    if (it != document.MemberEnd() && it->value.IsString()) return it->value.GetString();
  }
  std::string text = body;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

ImageReference parse_image_reference(std::string_view image) {
  ImageReference reference;
  const size_t at = image.find('@');
  if (at != std::string_view::npos) {
    reference.repository = std::string(image.substr(0, at));
    reference.digest = std::string(image.substr(at + 1));
    return reference;
  }
  // A ':' after the last '/' separates the tag; one before it belongs to a registry host:port.
  const size_t slash = image.rfind('/');
  const size_t colon = image.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    reference.repository = std::string(image.substr(0, colon));
    reference.tag = std::string(image.substr(colon + 1));
  } else {
    reference.repository = std::string(image);
    reference.tag = "latest";
  }
  return reference;
}

void check_image_reference(std::string_view image, const std::string& what) {
  const bool starts_well = !image.empty() && std::isalnum(static_cast<unsigned char>(image[0]));
  const bool chars_ok = image.find_first_not_of(
                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                            "0123456789._-/:@") == std::string_view::npos;
  if (!starts_well || !chars_ok) {
    throw Error::invalid_argument(
        what + ": '" + std::string(image) +
        "' is not a container image reference (e.g. busybox:1.36 or "
        "localhost:5000/team/trainer:v1); local_docker runs container images");
  }
}

Engine::Engine(std::string socket_path, std::string api_version)
    : socket_path_(std::move(socket_path)), api_version_(std::move(api_version)) {
  http::Endpoint endpoint;
  endpoint.base_url = "http://localhost";
  endpoint.unix_socket = socket_path_;
  endpoint.connect_timeout_ms = 5000;
  endpoint.description = "the Docker Engine at unix://" + socket_path_;
  client_ = std::make_unique<http::Client>(std::move(endpoint));
}

const std::string& Engine::api_version() {
  if (api_version_.empty()) {
    http::Request request;
    request.path = "/_ping";
    request.timeout_ms = 10000;
    http::Response response;
    try {
      response = client_->send(request);
    } catch (const Error& error) {
      throw Error(error.code(), std::string(error.what()) +
                                    "; start dockerd (packaging/engines/docker_up.sh does) or "
                                    "point DOCKER_HOST at its socket");
    }
    std::string daemon = response.header("api-version");
    if (daemon.empty()) {
      request.path = "/version";
      const http::Response version = client_->send(request);
      const rapidjson::Document document =
          plugins_common::parse_object(version.body, "GET /version");
      daemon = plugins_common::string_member(document, "ApiVersion", "GET /version");
    }
    api_version_ = negotiate_api_version(daemon);
  }
  return api_version_;
}

std::string Engine::versioned(const std::string& path) { return "/v" + api_version() + path; }

http::Response Engine::call(const std::string& method, const std::string& path,
                            const std::string& body, int64_t timeout_ms,
                            const http::Headers& headers) {
  http::Request request;
  request.method = method;
  request.path = versioned(path);
  request.body = body;
  request.timeout_ms = timeout_ms;
  request.headers = headers;
  return client_->send(request);
}

http::Response Engine::expect(const std::string& method, const std::string& path,
                              const std::string& what, const std::string& body,
                              int64_t timeout_ms) {
  http::Response response = call(method, path, body, timeout_ms);
  if (!response.ok()) {
    throw Error(plugins_common::code_for_http_status(response.status),
                what + ": the Docker Engine answered " + std::to_string(response.status) + ": " +
                    engine_message(response.body));
  }
  return response;
}

rapidjson::Document Engine::expect_json(const std::string& method, const std::string& path,
                                        const std::string& what, const std::string& body) {
  const http::Response response = expect(method, path, what, body);
  rapidjson::Document document;
  document.Parse(response.body.data(), response.body.size());
  if (document.HasParseError()) {
    throw Error::internal(what + ": the Docker Engine's answer is not JSON");
  }
  return document;
}

http::Response Engine::stream(const http::Request& request, const http::ChunkHandler& on_chunk) {
  http::Request copy = request;
  copy.path = versioned(request.path);
  return client_->stream(copy, on_chunk);
}

}  // namespace sortie::docker
