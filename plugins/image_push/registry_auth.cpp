#include "registry_auth.hpp"

#include <cstdlib>
#include <fstream>
#include <optional>
#include <sortie/plugin.hpp>
#include <sstream>

#include "base64.hpp"
#include "base64url.hpp"
#include "json_fields.hpp"

namespace sortie::image_push {
namespace {

// Google's documented user name for pushing with an OAuth access token.
constexpr const char* kAccessTokenUser = "oauth2accesstoken";

std::string docker_config_path() {
  if (const char* dir = std::getenv("DOCKER_CONFIG"); dir != nullptr && *dir != '\0') {
    return std::string(dir) + "/config.json";
  }
  const char* home = std::getenv("HOME");
  return home == nullptr ? "" : std::string(home) + "/.docker/config.json";
}

// "https://index.docker.io/v1/" -> "docker.io"; "http://127.0.0.1:5000" -> "127.0.0.1:5000".
std::string registry_of_config_key(std::string key) {
  for (const char* scheme : {"https://", "http://"}) {
    if (key.rfind(scheme, 0) == 0) key = key.substr(std::string_view(scheme).size());
  }
  key = key.substr(0, key.find('/'));
  return key == "index.docker.io" || key == "registry-1.docker.io" ? "docker.io" : key;
}

std::string base64url_padded(std::string_view bytes) {
  std::string out = base64url(bytes);
  out.append((4 - out.size() % 4) % 4, '=');
  return out;
}

}  // namespace

bool is_google_registry(const std::string& registry) {
  const auto ends_with = [&](std::string_view suffix) {
    return registry.size() >= suffix.size() &&
           registry.compare(registry.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return registry == "gcr.io" || ends_with(".gcr.io") || ends_with("-docker.pkg.dev");
}

RegistryCredentials registry_credentials(const std::string& registry,
                                         const std::string& access_token_source) {
  const std::string path = docker_config_path();
  std::ifstream in(path);
  if (!path.empty() && in) {
    std::ostringstream text;
    text << in.rdbuf();
    const std::string what = "Docker config " + path;
    const rapidjson::Document config = plugins_common::parse_object(text.str(), what);
    if (const rapidjson::Value* auths = plugins_common::object_member(config, "auths", what)) {
      for (const auto& entry : auths->GetObject()) {
        const std::string key(entry.name.GetString(), entry.name.GetStringLength());
        if (registry_of_config_key(key) != registry || !entry.value.IsObject()) continue;
        const std::string entry_what = what + " entry auths[\"" + key + "\"]";
        RegistryCredentials credentials;
        credentials.description = "the entry for " + key + " in " + path;
        credentials.identity_token =
            plugins_common::string_member(entry.value, "identitytoken", entry_what);
        credentials.username = plugins_common::string_member(entry.value, "username", entry_what);
        credentials.password = plugins_common::string_member(entry.value, "password", entry_what);
        const std::string auth = plugins_common::string_member(entry.value, "auth", entry_what);
        if (!auth.empty()) {
          const std::optional<std::string> decoded =
              plugins_common::base64_decode(auth, {.stop_at_padding = true});
          const size_t colon = decoded ? decoded->find(':') : std::string::npos;
          if (colon == std::string::npos) {
            throw Error::invalid_argument(
                entry_what + ": 'auth' is not base64 of USER:PASSWORD; run `docker login " +
                registry + "` again");
          }
          credentials.username = decoded->substr(0, colon);
          credentials.password = decoded->substr(colon + 1);
        }
        if (!credentials.identity_token.empty() || !credentials.username.empty()) {
          return credentials;
        }
      }
    }
  }
  RegistryCredentials credentials;
  if (is_google_registry(registry) && !access_token_source.empty()) {
    credentials.use_access_token = true;
    credentials.description = access_token_source + " (user " + std::string(kAccessTokenUser) + ")";
  } else {
    credentials.description = "no credentials";
  }
  return credentials;
}

std::string x_registry_auth(const RegistryCredentials& credentials, const std::string& registry,
                            const std::function<std::string()>& access_token) {
  rapidjson::Document auth(rapidjson::kObjectType);
  auto& alloc = auth.GetAllocator();
  if (credentials.use_access_token) {
    plugins_common::add_string(auth, "username", kAccessTokenUser, alloc);
    plugins_common::add_string(auth, "password", access_token(), alloc);
  } else if (!credentials.identity_token.empty()) {
    plugins_common::add_string(auth, "identitytoken", credentials.identity_token, alloc);
  } else if (!credentials.username.empty()) {
    plugins_common::add_string(auth, "username", credentials.username, alloc);
    plugins_common::add_string(auth, "password", credentials.password, alloc);
  }
  if (auth.MemberCount() > 0) plugins_common::add_string(auth, "serveraddress", registry, alloc);
  return base64url_padded(plugins_common::to_json_text(auth));
}

}  // namespace sortie::image_push
