#include "access_token.hpp"

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sortie/http_client.hpp>
#include <sortie/plugin.hpp>
#include <sstream>

#include "command_output.hpp"
#include "json_fields.hpp"
#include "jwt.hpp"

namespace sortie::vertex {
namespace {

constexpr const char* kDefaultTokenUri = "https://oauth2.googleapis.com/token";
constexpr std::chrono::seconds kAssertionLifetime{3600};
// gcloud's tokens last an hour; a process re-runs the command after this much.
constexpr std::chrono::seconds kCommandTokenLifetime{600};
constexpr std::chrono::seconds kExpiryMargin{60};
constexpr int64_t kCommandTimeoutMs = 60000;

std::string trim(std::string text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error::unauthenticated(
        what + " cannot be read; check the path given as service_account_key_file");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// "http://127.0.0.1:9/token" -> {"http://127.0.0.1:9", "/token"}.
std::pair<std::string, std::string> split_url(const std::string& url, const std::string& what) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos ||
      (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0)) {
    throw Error::unauthenticated(what + ": token_uri '" + url + "' is not an http(s) URL");
  }
  const size_t slash = url.find('/', scheme + 3);
  if (slash == std::string::npos) return {url, "/"};
  return {url.substr(0, slash), url.substr(slash)};
}

}  // namespace

std::string AccessTokenSource::description() const {
  if (!connection_.service_account_key_file.empty()) {
    return "service-account key " + connection_.service_account_key_file;
  }
  const char* env = std::getenv(kTokenEnv);
  if (env != nullptr && *env != '\0') return kTokenEnv;
  return "access_token_command '" + connection_.access_token_command + "'";
}

std::string AccessTokenSource::token() {
  const auto now = std::chrono::steady_clock::now();
  if (!cached_.empty() && now < expires_at_) return cached_;
  std::chrono::seconds lifetime{0};
  std::string token;
  if (!connection_.service_account_key_file.empty()) {
    token = from_service_account(&lifetime);
  } else if (const char* env = std::getenv(kTokenEnv); env != nullptr && *env != '\0') {
    token = trim(env);
    lifetime = kCommandTokenLifetime;
  } else {
    token = from_command(&lifetime);
  }
  cached_ = token;
  expires_at_ = now + (lifetime > kExpiryMargin ? lifetime - kExpiryMargin : lifetime);
  return cached_;
}

std::string AccessTokenSource::from_command(std::chrono::seconds* lifetime) {
  const std::string& command = connection_.access_token_command;
  const std::string what = "access_token_command '" + command + "'";
  if (trim(command).empty()) {
    throw Error::unauthenticated(
        "no access token: set GOOGLE_OAUTH_ACCESS_TOKEN, run option "
        "service_account_key_file or access_token_command");
  }
  const CommandOutput output = run_command(command, kCommandTimeoutMs);
  if (output.timed_out) {
    throw Error::unauthenticated(what + " did not finish within " +
                                 std::to_string(kCommandTimeoutMs / 1000) +
                                 " s; run it by hand to see what it waits for");
  }
  const std::string token = trim(output.out);
  if (output.exit_status != 0 || token.empty() ||
      token.find_first_of(" \t\n") != std::string::npos) {
    std::string detail = trim(output.err);
    if (detail.size() > 500) detail = detail.substr(0, 500) + "...";
    throw Error::unauthenticated(
        what +
        (output.exit_status != 0
             ? " failed (exit status " + std::to_string(output.exit_status) + ")"
             : " printed no single token") +
        (detail.empty() ? "" : ": " + detail) +
        "; log in with `gcloud auth login`, or set GOOGLE_OAUTH_ACCESS_TOKEN or run "
        "option service_account_key_file");
  }
  *lifetime = kCommandTokenLifetime;
  return token;
}

std::string AccessTokenSource::from_service_account(std::chrono::seconds* lifetime) {
  const std::string& path = connection_.service_account_key_file;
  const std::string what = "service-account key file " + path;
  const rapidjson::Document key = [&] {
    try {
      return plugins_common::parse_object(read_file(path, what), what);
    } catch (const Error& e) {
      throw Error::unauthenticated(e.what());
    }
  }();
  if (plugins_common::string_member(key, "type", what) != "service_account") {
    throw Error::unauthenticated(
        what +
        ": 'type' is not \"service_account\"; give a service account's JSON key "
        "(IAM > Service accounts > Keys), not user credentials");
  }
  const std::string email = plugins_common::string_member(key, "client_email", what);
  const std::string private_key = plugins_common::string_member(key, "private_key", what);
  if (email.empty() || private_key.empty()) {
    throw Error::unauthenticated(what + ": 'client_email' and 'private_key' are required");
  }
  const std::string token_uri =
      plugins_common::string_member(key, "token_uri", what, kDefaultTokenUri);

  const int64_t now = static_cast<int64_t>(std::time(nullptr));
  rapidjson::Document claims(rapidjson::kObjectType);
  auto& alloc = claims.GetAllocator();
  plugins_common::add_string(claims, "iss", email, alloc);
  plugins_common::add_string(claims, "scope", kCloudPlatformScope, alloc);
  plugins_common::add_string(claims, "aud", token_uri, alloc);
  plugins_common::add_member(claims, "iat", rapidjson::Value(now), alloc);
  plugins_common::add_member(claims, "exp", rapidjson::Value(now + kAssertionLifetime.count()),
                             alloc);
  const std::string assertion = [&] {
    try {
      return sign_jwt_rs256(plugins_common::to_json_text(claims), private_key,
                            plugins_common::string_member(key, "private_key_id", what), what);
    } catch (const Error& e) {
      throw Error::unauthenticated(e.what());
    }
  }();

  const auto [base, token_path] = split_url(token_uri, what);
  http::Endpoint endpoint;
  endpoint.base_url = base;
  endpoint.description = "OAuth token endpoint " + token_uri;
  endpoint.timeout_ms = static_cast<int64_t>(connection_.request_timeout_s * 1000);
  http::Client client(endpoint);
  http::Request request;
  request.method = "POST";
  request.path = token_path;
  request.content_type = "application/x-www-form-urlencoded";
  request.body = "grant_type=" + http::url_encode("urn:ietf:params:oauth:grant-type:jwt-bearer") +
                 "&assertion=" + http::url_encode(assertion);
  request.body_is_credential = true;
  const http::Response response = client.send(request);
  rapidjson::Document answer;
  answer.Parse(response.body.c_str());
  if (!response.ok()) {
    std::string reason = "HTTP " + std::to_string(response.status);
    if (!answer.HasParseError() && answer.IsObject()) {
      const std::string error = plugins_common::string_member(answer, "error", "token response");
      const std::string description =
          plugins_common::string_member(answer, "error_description", "token response");
      if (!error.empty()) reason += " " + error;
      if (!description.empty()) reason += ": " + description;
    }
    throw Error::unauthenticated("the token endpoint " + token_uri + " refused " + what + " (" +
                                 reason +
                                 "); check that the key is current and the service account exists");
  }
  if (answer.HasParseError() || !answer.IsObject() ||
      plugins_common::string_member(answer, "access_token", "token response").empty()) {
    throw Error::unauthenticated("the token endpoint " + token_uri +
                                 " answered without an access_token");
  }
  *lifetime = std::chrono::seconds(
      plugins_common::int_member(answer, "expires_in", "token response", 3600));
  return plugins_common::string_member(answer, "access_token", "token response");
}

}  // namespace sortie::vertex
