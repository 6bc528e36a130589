// File: sdk/http/http_client.cpp
//
// sortie::http::Client on libcurl's easy interface. One easy handle per Client keeps the
// connection alive between calls (a Docker status query reuses its unix-socket connection).
#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <sortie/http_client.hpp>
#include <sortie/plugin.hpp>

namespace sortie::http {
namespace {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r' ||
                           text.back() == '\n')) {
    text.remove_suffix(1);
  }
  return text;
}

bool carries_credentials(const Endpoint& endpoint, const Request& request) {
  const bool authorization_header =
      std::any_of(request.headers.begin(), request.headers.end(),
                  [](const auto& header) { return lower(header.first) == "authorization"; });
  return request.body_is_credential || authorization_header || !endpoint.bearer_token.empty() ||
         !endpoint.client_key_file.empty() || !endpoint.client_key_pem.empty();
}

// Where one transfer puts what libcurl hands it.
struct Transfer {
  CURL* curl = nullptr;
  Response* response = nullptr;
  const ChunkHandler* on_chunk = nullptr;
  const std::atomic<bool>* abort = nullptr;
  bool stopped_early = false;
};

bool is_success(CURL* curl) {
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  return status >= 200 && status < 300;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  if (transfer->on_chunk == nullptr || !is_success(transfer->curl)) {
    transfer->response->body.append(data, bytes);
    return bytes;
  }
  if (!(*transfer->on_chunk)(std::string_view(data, bytes))) {
    transfer->stopped_early = true;
    return 0;  // makes libcurl abort with CURLE_WRITE_ERROR
  }
  return bytes;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* transfer = static_cast<Transfer*>(user);
  if (!transfer->abort->load()) return 0;
  transfer->stopped_early = true;
  return 1;  // makes libcurl abort with CURLE_ABORTED_BY_CALLBACK
}

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const size_t bytes = size * count;
  std::string_view line(data, bytes);
  if (line.rfind("HTTP/", 0) == 0) {
    transfer->response->headers.clear();  // a new response (after 100-continue or a redirect)
    return bytes;
  }
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    transfer->response->headers.emplace_back(lower(trim(line.substr(0, colon))),
                                             std::string(trim(line.substr(colon + 1))));
  }
  return bytes;
}

Code code_of(CURLcode code) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return Code::kDeadlineExceeded;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CRL_BADFILE:
      return Code::kInvalidArgument;
    default:
      return Code::kUnavailable;
  }
}

std::string hint_for(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
      return "is the server running and listening there?";
    case CURLE_COULDNT_RESOLVE_HOST:
      return "check the host name";
    case CURLE_OPERATION_TIMEDOUT:
      return "the server did not answer in time";
    case CURLE_PEER_FAILED_VERIFICATION:
      return "the server's certificate is not trusted: check the CA (or its host name)";
    case CURLE_SSL_CERTPROBLEM:
      return "check the client certificate and key";
    case CURLE_SSL_CACERT_BADFILE:
      return "check the CA file";
    default:
      return "check the endpoint address and its TLS settings";
  }
}

curl_blob blob_of(const std::string& pem) {
  return curl_blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_NOCOPY};
}

}  // namespace

struct Client::Handle {
  CURL* curl = nullptr;
  ~Handle() { curl_easy_cleanup(curl); }
};

std::string Response::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return "";
}

Client::Client(Endpoint endpoint) : endpoint_(std::move(endpoint)), handle_(new Handle) {
  global_init_once();
  if (endpoint_.description.empty()) {
    endpoint_.description = endpoint_.unix_socket.empty()
                                ? endpoint_.base_url
                                : endpoint_.base_url + " over unix://" + endpoint_.unix_socket;
  }
  handle_->curl = curl_easy_init();
  if (handle_->curl == nullptr) throw Error::resource_exhausted("curl_easy_init failed");
}

Client::~Client() = default;

Response Client::send(const Request& request) { return perform(request, nullptr); }

Response Client::stream(const Request& request, const ChunkHandler& on_chunk) {
  return perform(request, &on_chunk);
}

Response Client::perform(const Request& request, const ChunkHandler* on_chunk) {
  CURL* curl = handle_->curl;
  curl_easy_reset(curl);  // keeps the connection cache, drops the previous request's options
  Response response;
  Transfer transfer{curl, &response, on_chunk, request.abort, false};
  char error_buffer[CURL_ERROR_SIZE] = {0};

  const std::string url = endpoint_.base_url + request.path;
  if (endpoint_.unix_socket.empty() && carries_credentials(endpoint_, request) &&
      !may_carry_credentials(url)) {
    throw Error::invalid_argument(endpoint_.description +
                                  ": refusing to send credentials over "
                                  "plain http to a host that is not this machine; use an "
                                  "https:// URL");
  }
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  if (request.method == "HEAD") curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  if (!endpoint_.unix_socket.empty()) {
    curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, endpoint_.unix_socket.c_str());
  }
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(endpoint_.connect_timeout_ms));
  const int64_t timeout = request.timeout_ms >= 0 ? request.timeout_ms : endpoint_.timeout_ms;
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout));

  // TLS: a CA given as a file or as PEM text replaces the system store.
  if (!endpoint_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, endpoint_.ca_file.c_str());
  curl_blob ca = blob_of(endpoint_.ca_pem);
  if (!endpoint_.ca_pem.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &ca);
  if (!endpoint_.client_cert_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT, endpoint_.client_cert_file.c_str());
  }
  curl_blob cert = blob_of(endpoint_.client_cert_pem);
  if (!endpoint_.client_cert_pem.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT_BLOB, &cert);
  if (!endpoint_.client_key_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLKEY, endpoint_.client_key_file.c_str());
  }
  curl_blob key = blob_of(endpoint_.client_key_pem);
  if (!endpoint_.client_key_pem.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY_BLOB, &key);
  if (endpoint_.insecure_skip_tls_verify) {
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 0L);
  }

  curl_slist* headers = nullptr;
  std::string authorization;
  if (!endpoint_.bearer_token.empty()) {
    authorization = "Authorization: Bearer " + endpoint_.bearer_token;
    headers = curl_slist_append(headers, authorization.c_str());
  }
  std::string content_type;
  if (!request.body.empty()) {
    content_type = "Content-Type: " + request.content_type;
    headers = curl_slist_append(headers, content_type.c_str());
  }
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  std::vector<std::string> extra;
  extra.reserve(request.headers.size());
  for (const auto& [name, value] : request.headers) {
    extra.push_back(name + ": " + value);
    headers = curl_slist_append(headers, extra.back().c_str());
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT" ||
      request.method == "PATCH") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &transfer);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &transfer);
  if (request.abort != nullptr) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &transfer);
  }

  const CURLcode result = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  const bool stopped = transfer.stopped_early &&
                       (result == CURLE_WRITE_ERROR || result == CURLE_ABORTED_BY_CALLBACK);
  if (result != CURLE_OK && !stopped) {
    const std::string detail = error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(result);
    throw Error(code_of(result), request.method + " " + request.path + " on " +
                                     endpoint_.description + " failed: " + detail + " (" +
                                     hint_for(result) + ")");
  }
  return response;
}

std::string url_encode(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace sortie::http
