// The Docker Engine HTTP API over its unix socket (DOCKER_HOST honoured), with the API version
// negotiated on first use. No docker CLI is involved.
#ifndef SORTIE_DOCKER_ENGINE_HPP
#define SORTIE_DOCKER_ENGINE_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <sortie/http_client.hpp>
#include <string>
#include <string_view>

namespace sortie::docker {

// The newest and oldest Engine API versions this plugin speaks (DeviceRequests need 1.40).
inline constexpr std::string_view kNewestApiVersion = "1.41";
inline constexpr std::string_view kOldestApiVersion = "1.40";

// The socket path named by DOCKER_HOST ("unix:///path"), or /var/run/docker.sock when it is unset.
// Any other scheme is an INVALID_ARGUMENT error naming DOCKER_HOST.
std::string docker_socket_from_environment();

// Picks the version to speak from the daemon's: min(daemon, newest). Throws FAILED_PRECONDITION
// when the daemon is older than kOldestApiVersion.
std::string negotiate_api_version(std::string_view daemon_version);

class Engine {
 public:
  // api_version: a version negotiated earlier (another Engine's api_version()), or "" to
  // negotiate on first use.
  explicit Engine(std::string socket_path, std::string api_version = "");

  // One API call on the negotiated version ("/containers/json" becomes "/v1.41/containers/json").
  // Returns the response whatever its status; throws when the Engine cannot be reached.
  http::Response call(const std::string& method, const std::string& path,
                      const std::string& body = "", int64_t timeout_ms = -1,
                      const http::Headers& headers = {});
  // Like call() but throws unless the status is 2xx, with the Engine's own message: NOT_FOUND
  // (404), ALREADY_EXISTS (409), INVALID_ARGUMENT (400) or UNAVAILABLE (5xx). `what` says what
  // was being done ("creating container x").
  http::Response expect(const std::string& method, const std::string& path, const std::string& what,
                        const std::string& body = "", int64_t timeout_ms = -1);
  rapidjson::Document expect_json(const std::string& method, const std::string& path,
                                  const std::string& what, const std::string& body = "");
  // Streams the body chunk by chunk (logs, events, pull/push/build progress).
  http::Response stream(const http::Request& request, const http::ChunkHandler& on_chunk);

  const std::string& api_version();
  const std::string& socket_path() const { return socket_path_; }

 private:
  std::string versioned(const std::string& path);

  std::string socket_path_;
  std::unique_ptr<http::Client> client_;
  std::string api_version_;
};

// The Engine's {"message": "..."} error text from a response body (or the body itself).
std::string engine_message(const std::string& body);

// Splits "repo[:tag]" / "repo@digest" into the fromImage/tag pair of POST /images/create.
struct ImageReference {
  std::string repository;
  std::string tag;  // "latest" when absent; empty for a digest reference
  std::string digest;
};
ImageReference parse_image_reference(std::string_view image);

// Throws INVALID_ARGUMENT naming `what` unless image looks like a Docker image reference
// (starts with a letter or digit; letters, digits and . _ - / : @ only).
void check_image_reference(std::string_view image, const std::string& what);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_ENGINE_HPP
