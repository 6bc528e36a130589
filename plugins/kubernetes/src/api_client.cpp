#include "api_client.hpp"

#include <sortie/plugin.hpp>

namespace sortie::kubernetes {
namespace {

// The server's explanation: the Status object's message and field causes, else the raw body.
std::string server_message(const http::Response& response) {
  rapidjson::Document body;
  body.Parse(response.body.data(), response.body.size());
  if (body.HasParseError() || !body.IsObject()) {
    std::string text = response.body.substr(0, 300);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }
  std::string message = text_at(body, "message");
  if (const Json* causes = value_at(body, "details.causes"); causes && causes->IsArray()) {
    for (const Json& cause : causes->GetArray()) {
      const std::string field = text_at(cause, "field");
      const std::string text = text_at(cause, "message");
      if (!text.empty() && message.find(text) == std::string::npos) {
        message += "; " + (field.empty() ? "" : field + ": ") + text;
      }
    }
  }
  return message;
}

[[noreturn]] void throw_api_error(const http::Response& response, const std::string& what,
                                  const ClusterConnection& connection) {
  const std::string prefix = "kubernetes: " + what + ": HTTP " + std::to_string(response.status);
  const std::string message = server_message(response);
  const std::string said = message.empty() ? "" : ": " + message;
  switch (response.status) {
    case 400:
    case 422:
      throw Error::invalid_argument(prefix + " (rejected by the API server)" + said);
    case 401:
      throw Error::unauthenticated(
          prefix + " Unauthorized" + said + "; the credentials of " + connection.source +
          " were not accepted (expired token or wrong client certificate?)");
    case 403:
      throw Error(
          Code::kPermissionDenied,
          prefix + " Forbidden" + said +
              "; the user lacks RBAC permission for this (check with `kubectl auth can-i`)");
    case 404:
      throw Error::not_found(prefix + " Not Found" + said);
    case 409:
      throw Error::already_exists(prefix + " Conflict" + said);
    case 429:
      throw Error::unavailable(prefix + " Too Many Requests" + said + "; retry later");
    default:
      break;
  }
  if (response.status >= 500) {
    throw Error::unavailable(prefix + " server error" + said + " (from " + connection.server +
                             "); retry later");
  }
  throw Error::unknown(prefix + said);
}

rapidjson::Document parse_body(const http::Response& response, const std::string& what) {
  return plugins_common::parse_object(response.body, "kubernetes: " + what + ": response");
}

}  // namespace

ApiClient::ApiClient(ClusterConnection connection)
    : connection_(std::move(connection)), client_(connection_.endpoint()) {}

http::Response ApiClient::send(const http::Request& request, const std::string& what,
                               const http::ChunkHandler* on_chunk) {
  try {
    return on_chunk != nullptr ? client_.stream(request, *on_chunk) : client_.send(request);
  } catch (const Error& e) {
    throw Error(e.code(), "kubernetes: " + what + ": " + e.what());
  }
}

rapidjson::Document ApiClient::get(const std::string& path, const std::string& what) {
  http::Request request;
  request.path = path;
  const http::Response response = send(request, what);
  if (!response.ok()) throw_api_error(response, what, connection_);
  return parse_body(response, what);
}

std::optional<rapidjson::Document> ApiClient::get_if_exists(const std::string& path,
                                                            const std::string& what) {
  http::Request request;
  request.path = path;
  const http::Response response = send(request, what);
  if (response.status == 404) return std::nullopt;
  if (!response.ok()) throw_api_error(response, what, connection_);
  return parse_body(response, what);
}

rapidjson::Document ApiClient::post(const std::string& path, const std::string& body,
                                    const std::string& what) {
  http::Request request;
  request.method = "POST";
  // Strict: the server refuses unknown fields instead of dropping them (kubectl's default).
  request.path = path + "?fieldValidation=Strict";
  request.body = body;
  const http::Response response = send(request, what);
  if (!response.ok()) throw_api_error(response, what, connection_);
  return parse_body(response, what);
}

bool ApiClient::remove(const std::string& path, const std::string& what) {
  http::Request request;
  request.method = "DELETE";
  request.path = path;
  request.body = R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"})";
  const http::Response response = send(request, what);
  if (response.status == 404) return false;
  if (!response.ok()) throw_api_error(response, what, connection_);
  return true;
}

std::optional<std::string> ApiClient::get_text(const std::string& path, const std::string& what) {
  http::Request request;
  request.path = path;
  const http::Response response = send(request, what);
  if (response.status == 400) return std::nullopt;
  if (!response.ok()) throw_api_error(response, what, connection_);
  return response.body;
}

http::Response ApiClient::stream(const std::string& path, const http::ChunkHandler& on_chunk,
                                 const std::string& what) {
  http::Request request;
  request.path = path;
  request.timeout_ms = 0;  // a follow stream lasts as long as the container runs
  return send(request, what, &on_chunk);
}

void ApiClient::fail(const http::Response& response, const std::string& what) const {
  throw_api_error(response, what, connection_);
}

std::string with_label_selector(const std::string& collection, const std::string& selector) {
  return collection + "?labelSelector=" + http::url_encode(selector);
}

}  // namespace sortie::kubernetes
