#include "vertex_api.hpp"

#include <algorithm>
#include <cmath>
#include <sortie/plugin.hpp>
#include <thread>

#include "http_status.hpp"
#include "json_fields.hpp"

namespace sortie::vertex {
namespace {

constexpr double kMaxDelaySeconds = 60;

http::Endpoint endpoint_of(const Connection& connection) {
  http::Endpoint endpoint;
  endpoint.base_url = connection.endpoint;
  endpoint.timeout_ms = static_cast<int64_t>(connection.request_timeout_s * 1000);
  endpoint.description = "Vertex AI at " + connection.endpoint;
  return endpoint;
}

bool retryable_status(long status, bool is_create) {
  if (status == 429 || status == 503) return true;
  return !is_create && (status == 500 || status == 502 || status == 504);
}

// "HTTP 400 INVALID_ARGUMENT: <message>" from a google.rpc.Status error body.
std::string api_error_text(const http::Response& response) {
  std::string text = "HTTP " + std::to_string(response.status);
  rapidjson::Document body;
  body.Parse(response.body.c_str());
  const rapidjson::Value* error =
      body.HasParseError() ? nullptr : plugins_common::find_member(body, "error");
  if (error != nullptr && error->IsObject()) {
    const rapidjson::Value* status = plugins_common::find_member(*error, "status");
    const rapidjson::Value* message = plugins_common::find_member(*error, "message");
    if (status != nullptr && status->IsString()) text += std::string(" ") + status->GetString();
    if (message != nullptr && message->IsString()) text += std::string(": ") + message->GetString();
  } else if (!response.body.empty()) {
    text += ": " + response.body.substr(0, 300);
  }
  return text;
}

std::string hint_for(long status, const std::string& token_source) {
  switch (status) {
    case 401:
      return "; the access token from " + token_source +
             " was refused: refresh the credentials (gcloud auth login)";
    case 403:
      return "; the caller needs the Vertex AI User role (roles/aiplatform.user) on the project "
             "and the Vertex AI API enabled";
    case 429:
      return "; the project's quota or request rate is exhausted, try again later";
    default:
      return "";
  }
}

double delay_seconds(const http::Response* response, double base, int64_t attempt) {
  if (response != nullptr) {
    const std::string retry_after = response->header("retry-after");
    if (!retry_after.empty() && std::all_of(retry_after.begin(), retry_after.end(), ::isdigit)) {
      return std::min(kMaxDelaySeconds, std::stod(retry_after));
    }
  }
  return std::min(kMaxDelaySeconds, base * std::pow(2.0, static_cast<double>(attempt)));
}

}  // namespace

VertexApi::VertexApi(Connection connection)
    : connection_(std::move(connection)), tokens_(connection_), client_(endpoint_of(connection_)) {}

rapidjson::Document VertexApi::call(const std::string& method, const std::string& path,
                                    const std::string& body, bool is_create,
                                    const std::string& what) {
  bool refreshed_token = false;
  for (int64_t attempt = 0;; ++attempt) {
    http::Request request;
    request.method = method;
    request.path = path;
    request.body = body;
    request.headers.emplace_back("Authorization", "Bearer " + tokens_.token());
    const bool last = attempt >= connection_.retries;
    http::Response response;
    try {
      response = client_.send(request);
    } catch (const Error& e) {
      // Nothing reached the service when the connection failed; a timeout may have.
      const bool safe =
          e.code() == Code::kUnavailable || (e.code() == Code::kDeadlineExceeded && !is_create);
      if (!safe || last) {
        throw Error(e.code(),
                    "Vertex AI " + what + ": " + e.what() +
                        (last && safe ? " (after " + std::to_string(attempt) + " retries)" : ""));
      }
      std::this_thread::sleep_for(std::chrono::duration<double>(
          delay_seconds(nullptr, connection_.retry_base_delay_s, attempt)));
      continue;
    }
    if (response.ok()) {
      rapidjson::Document answer;
      answer.Parse(response.body.c_str());
      if (answer.HasParseError() || !answer.IsObject()) {
        throw Error::unavailable("Vertex AI " + what + ": the answer is not a JSON object: " +
                                 response.body.substr(0, 200));
      }
      return answer;
    }
    if (response.status == 401 && !refreshed_token) {
      refreshed_token = true;
      tokens_.invalidate();
      --attempt;  // a token refresh is not a retry
      continue;
    }
    if (retryable_status(response.status, is_create) && !last) {
      std::this_thread::sleep_for(std::chrono::duration<double>(
          delay_seconds(&response, connection_.retry_base_delay_s, attempt)));
      continue;
    }
    const bool gave_up = retryable_status(response.status, is_create);
    throw Error(plugins_common::code_for_http_status(response.status),
                "Vertex AI " + what + " failed: " + api_error_text(response) +
                    hint_for(response.status, tokens_.description()) +
                    (gave_up ? " (after " + std::to_string(attempt) + " retries)" : ""));
  }
}

rapidjson::Document VertexApi::create_custom_job(const std::string& parent,
                                                 const std::string& job_json) {
  return call("POST", "/v1/" + parent + "/customJobs", job_json, true,
              "create CustomJob in " + parent);
}

rapidjson::Document VertexApi::get_custom_job(const std::string& name) {
  return call("GET", "/v1/" + name, "", false, "get " + name);
}

rapidjson::Document VertexApi::list_custom_jobs(const std::string& parent,
                                                const std::string& filter,
                                                const std::string& page_token) {
  std::string path = "/v1/" + parent + "/customJobs?filter=" + http::url_encode(filter);
  if (!page_token.empty()) path += "&pageToken=" + http::url_encode(page_token);
  return call("GET", path, "", false, "list CustomJobs in " + parent);
}

void VertexApi::cancel_custom_job(const std::string& name) {
  call("POST", "/v1/" + name + ":cancel", "{}", false, "cancel " + name);
}

}  // namespace sortie::vertex
