// The credentials the Docker Engine presents to a registry when it pushes a role's image: the
// X-Registry-Auth header of POST /images/{name}/push. From the first that applies:
//   1. an entry for the registry in the Docker CLI's config ($DOCKER_CONFIG/config.json, else
//      ~/.docker/config.json): "auth" (what `docker login` stores without a credential store),
//      "username"/"password" or "identitytoken";
//   2. for Google's registries (gcr.io, *.gcr.io, *-docker.pkg.dev), where the scheduler has one:
//      its Google access token as user oauth2accesstoken, which is how Google documents token
//      access;
//   3. none (anonymous).
// Credential helpers (credsStore, credHelpers) are not run. Secrets never appear in messages.
#ifndef SORTIE_IMAGE_PUSH_REGISTRY_AUTH_HPP
#define SORTIE_IMAGE_PUSH_REGISTRY_AUTH_HPP

#include <functional>
#include <string>

namespace sortie::image_push {

struct RegistryCredentials {
  // Where the credentials come from, for dry runs and messages: "no credentials",
  // "the Vertex AI access token", "the entry for H in /root/.docker/config.json".
  std::string description;
  bool use_access_token = false;
  std::string username;
  std::string password;
  std::string identity_token;
};

// Looks the registry ("127.0.0.1:5000", "docker.io", ...) up; access_token_source describes the
// scheduler's Google access token ("the Vertex AI access token"), empty where it has none. Throws
// INVALID_ARGUMENT naming the Docker config file when it exists but cannot be read as JSON, or its
// entry is malformed.
RegistryCredentials registry_credentials(const std::string& registry,
                                         const std::string& access_token_source);

// The X-Registry-Auth value: base64url (padded) JSON, "e30=" ({}) when anonymous. access_token is
// called only when the credentials say so.
std::string x_registry_auth(const RegistryCredentials& credentials, const std::string& registry,
                            const std::function<std::string()>& access_token);

// Whether Google documents token access for this registry (Container/Artifact Registry).
bool is_google_registry(const std::string& registry);

}  // namespace sortie::image_push

#endif  // SORTIE_IMAGE_PUSH_REGISTRY_AUTH_HPP
