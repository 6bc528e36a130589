// File: tests/framework/push_engines.hpp
//
// The engines an image push test needs: the Docker Engine on its unix socket
// (packaging/engines/docker_up.sh) holding a test image, and the registry on 127.0.0.1:5000
// (packaging/engines/registry_up.sh), reached directly so a test can read what was pushed.
#ifndef SORTIE_TESTS_FRAMEWORK_PUSH_ENGINES_HPP
#define SORTIE_TESTS_FRAMEWORK_PUSH_ENGINES_HPP

#include <cstdlib>
#include <sortie/http_client.hpp>
#include <sortie/plugin.hpp>
#include <string>

namespace sortie::testing {

inline constexpr const char* kPushRegistry = "127.0.0.1:5000";
inline constexpr const char* kPushEngineSetup =
    "; run packaging/engines/docker_up.sh and packaging/engines/registry_up.sh";

inline std::string docker_socket() {
  const char* host = std::getenv("DOCKER_HOST");
  const std::string text = host == nullptr ? "" : host;
  return text.rfind("unix://", 0) == 0 ? text.substr(7) : "/var/run/docker.sock";
}

// One request to the Docker Engine API.
inline http::Response engine(const std::string& method, const std::string& path) {
  http::Endpoint endpoint;
  endpoint.base_url = "http://localhost";
  endpoint.unix_socket = docker_socket();
  endpoint.timeout_ms = 30000;
  http::Client client(endpoint);
  http::Request request;
  request.method = method;
  request.path = path;
  return client.send(request);
}

// GET of `path` on the test registry.
inline http::Response registry(const std::string& path) {
  http::Endpoint endpoint;
  endpoint.base_url = std::string("http://") + kPushRegistry;
  endpoint.timeout_ms = 10000;
  http::Client client(endpoint);
  http::Request request;
  request.path = path;
  return client.send(request);
}

// "" when the Engine, `local_image` in it and the registry are all there; else what is missing.
inline std::string missing_push_engines(const std::string& local_image) {
  try {
    if (!engine("GET", "/_ping").ok()) return "the Docker Engine does not answer /_ping";
    if (!engine("GET", "/images/" + local_image + "/json").ok()) {
      return "the test image " + local_image + " is not in the Docker Engine";
    }
  } catch (const Error& e) {
    return std::string("no Docker Engine: ") + e.what();
  }
  try {
    if (!registry("/v2/").ok()) return std::string("the registry on ") + kPushRegistry + " refuses";
  } catch (const Error& e) {
    return std::string("no registry on ") + kPushRegistry + ": " + e.what();
  }
  return "";
}

}  // namespace sortie::testing

#endif  // SORTIE_TESTS_FRAMEWORK_PUSH_ENGINES_HPP
