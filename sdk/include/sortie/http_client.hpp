// File: sortie/http_client.hpp
//
// A small blocking HTTP/1.1 client for plugins that talk to a REST API (Docker Engine over its
// unix socket, a Kubernetes API server or Vertex AI over TLS). Built on libcurl; link
// Sortie::http. The header names no libcurl type, so including it costs plugins nothing.
//
// Ownership: a Client owns one libcurl easy handle and reuses its connection between calls. It
// is not thread-safe; use one Client per thread. Secrets (bearer token, client key) are held
// only in memory and never appear in an error message.
#ifndef SORTIE_HTTP_CLIENT_HPP
#define SORTIE_HTTP_CLIENT_HPP

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sortie::http {

// Where and how to connect. Every PEM field accepts the PEM text itself; every *_file field a path.
struct Endpoint {
  std::string base_url;     // "https://10.0.0.1:6443", or "http://localhost" with unix_socket
  std::string unix_socket;  // connect to this socket instead of base_url's host
  std::string ca_file;      // trust these CAs instead of the system store
  std::string ca_pem;
  std::string client_cert_file;  // mutual TLS
  std::string client_cert_pem;
  std::string client_key_file;
  std::string client_key_pem;
  bool insecure_skip_tls_verify = false;
  std::string bearer_token;  // sent as "Authorization: Bearer ..."
  int64_t connect_timeout_ms = 10000;
  int64_t timeout_ms = 0;   // whole-request limit; 0 means none (streams, long polls)
  std::string description;  // how errors name this endpoint, e.g. "Docker Engine at unix:///..."
};

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method = "GET";
  std::string path;  // appended to base_url, query included: "/v1.41/containers/json?all=1"
  Headers headers;   // extra headers
  std::string body;
  std::string content_type = "application/json";  // sent only when body is not empty
  int64_t timeout_ms = -1;                        // -1: the endpoint's timeout_ms
  // Set from any thread to end a transfer early (within about a second even while no data
  // arrives), e.g. a log follow the reader closed. Ending this way is not an error.
  const std::atomic<bool>* abort = nullptr;
  // The body holds a credential (an OAuth assertion): refused where may_carry_credentials is
  // false, as a bearer token, a client key or an Authorization header are.
  bool body_is_credential = false;
};

struct Response {
  long status = 0;
  Headers headers;   // names lower-cased
  std::string body;  // empty for stream() calls

  // The first header with this (lower-case) name, or "".
  std::string header(std::string_view name) const;
  bool ok() const { return status >= 200 && status < 300; }
};

// Receives a streamed body chunk by chunk. Return false to stop the transfer early.
using ChunkHandler = std::function<bool(std::string_view chunk)>;

class Client {
 public:
  explicit Client(Endpoint endpoint);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Sends the request and returns the whole response. Throws sortie::Error with code
  // UNAVAILABLE (connection refused, DNS, TLS handshake), DEADLINE_EXCEEDED (timeout) or
  // INVALID_ARGUMENT (bad URL or TLS file, credentials for plain http to another machine),
  // naming the endpoint and what to check. An HTTP error
  // status is not an exception: the caller reads status and body.
  Response send(const Request& request);

  // Like send() but hands the body to on_chunk as it arrives (logs, follow, progress). Only a
  // 2xx body is streamed; any other status's body is collected in Response::body, so an error
  // document never reaches on_chunk. Stopping early from on_chunk is not an error.
  Response stream(const Request& request, const ChunkHandler& on_chunk);

  const Endpoint& endpoint() const { return endpoint_; }

 private:
  struct Handle;
  Response perform(const Request& request, const ChunkHandler* on_chunk);

  Endpoint endpoint_;
  std::unique_ptr<Handle> handle_;
};

// Percent-encodes a query parameter value or path segment (RFC 3986 unreserved kept).
std::string url_encode(std::string_view text);

// Credentials travel over https only, or over plain http to this machine (127.0.0.0/8, ::1,
// localhost), where a test server or a local proxy listens (docs/config-trust.md, TRUST-5).
bool may_carry_credentials(std::string_view url);

}  // namespace sortie::http

#endif  // SORTIE_HTTP_CLIENT_HPP
