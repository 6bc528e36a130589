#include "image_push.hpp"

#include <cstdlib>
#include <sortie/plugin.hpp>
#include <utility>

#include "json_fields.hpp"
#include "registry_auth.hpp"

namespace sortie::image_push {
namespace {

constexpr const char* kDefaultSocket = "/var/run/docker.sock";
// How much of an answer is kept for an error message.
constexpr size_t kMaxErrorBody = 4096;

std::string docker_host_text() {
  const char* host = std::getenv("DOCKER_HOST");
  return host == nullptr || *host == '\0' ? "DOCKER_HOST unset"
                                          : "DOCKER_HOST=" + std::string(host);
}

http::Endpoint engine_endpoint(const std::string& socket_path, double timeout_s) {
  http::Endpoint endpoint;
  endpoint.base_url = "http://localhost";
  endpoint.unix_socket = socket_path;
  endpoint.timeout_ms = static_cast<int64_t>(timeout_s * 1000);
  endpoint.description =
      "the Docker Engine at unix://" + socket_path + " (" + docker_host_text() + ")";
  return endpoint;
}

std::string tag_path(const ImagePush& push) {
  return "/images/" + push.source + "/tag?repo=" + http::url_encode(push.target.repository) +
         "&tag=" + http::url_encode(push.target.tag);
}

std::string push_path(const ImagePush& push) {
  return "/images/" + push.target.repository + "/push?tag=" + http::url_encode(push.target.tag);
}

std::string roles_text(const ImagePush& push) {
  std::string text = push.roles.size() == 1 ? "role " : "roles ";
  for (size_t i = 0; i < push.roles.size(); ++i) {
    text += (i == 0 ? "'" : ", '") + push.roles[i] + "'";
  }
  return text;
}

// The "message" of an Engine error answer, else the body itself.
std::string engine_message(const http::Response& response, const std::string& body) {
  rapidjson::Document answer;
  answer.Parse(body.c_str());
  if (!answer.HasParseError() && answer.IsObject()) {
    const rapidjson::Value* message = plugins_common::find_member(answer, "message");
    if (message != nullptr && message->IsString()) return message->GetString();
  }
  return "HTTP " + std::to_string(response.status) + ": " + body.substr(0, 300);
}

// Registries answer refused credentials and permissions in words the Engine passes on.
Code code_for_registry_error(const std::string& message) {
  for (const char* word :
       {"unauthorized", "no basic auth credentials", "authentication required"}) {
    if (message.find(word) != std::string::npos) return Code::kUnauthenticated;
  }
  if (message.find("denied") != std::string::npos) return Code::kPermissionDenied;
  return Code::kUnavailable;
}

}  // namespace

std::string docker_socket_from_environment(const PushOrigin& origin) {
  const char* host = std::getenv("DOCKER_HOST");
  if (host == nullptr || *host == '\0') return kDefaultSocket;
  const std::string_view text(host);
  if (text.rfind("unix://", 0) != 0 || text.size() == std::string_view("unix://").size()) {
    throw Error::invalid_argument("DOCKER_HOST='" + std::string(text) + "' is not supported for " +
                                  origin.option + ": the " + origin.scheduler +
                                  " scheduler reaches the Docker Engine on a unix socket only; set "
                                  "DOCKER_HOST=unix:///path/to/docker.sock or unset it for " +
                                  kDefaultSocket);
  }
  return std::string(text.substr(std::string_view("unix://").size()));
}

std::string image_pushes_text(const std::vector<ImagePush>& pushes, const std::string& socket_path,
                              const PushOrigin& origin) {
  std::string text = "# " + origin.option + ", through the Docker Engine at unix://" + socket_path +
                     " (" + docker_host_text() + "):\n";
  for (const ImagePush& push : pushes) {
    text += "POST " + tag_path(push) + "\nPOST " + push_path(push) + "\nX-Registry-Auth: <" +
            registry_credentials(push.target.registry, origin.access_token_source).description +
            ">\n";
  }
  return text + "# then:\n";
}

rapidjson::Value image_pushes_to_json(const std::vector<ImagePush>& pushes,
                                      rapidjson::Document::AllocatorType& alloc) {
  rapidjson::Value array(rapidjson::kArrayType);
  for (const ImagePush& push : pushes) {
    rapidjson::Value entry(rapidjson::kObjectType);
    plugins_common::add_string(entry, "source", push.source, alloc);
    plugins_common::add_string(entry, "target", push.target.str(), alloc);
    rapidjson::Value roles(rapidjson::kArrayType);
    for (const std::string& role : push.roles)
      roles.PushBack(plugins_common::string_value(role, alloc), alloc);
    plugins_common::add_member(entry, "roles", std::move(roles), alloc);
    array.PushBack(entry, alloc);
  }
  return array;
}

std::vector<ImagePush> image_pushes_from_json(const rapidjson::Value& value,
                                              std::string_view what) {
  if (!value.IsArray()) {
    throw Error::invalid_argument(std::string(what) + ": 'image_pushes' must be an array");
  }
  std::vector<ImagePush> pushes;
  for (const rapidjson::Value& entry : value.GetArray()) {
    ImagePush push;
    push.source = plugins_common::string_member(entry, "source", what);
    check_local_image_name(push.source, std::string(what) + ": image_pushes source");
    push.target = parse_push_target(plugins_common::string_member(entry, "target", what),
                                    std::string(what) + ": image_pushes target");
    if (const rapidjson::Value* roles = plugins_common::array_member(entry, "roles", what)) {
      for (const rapidjson::Value& role : roles->GetArray()) {
        if (role.IsString()) push.roles.emplace_back(role.GetString(), role.GetStringLength());
      }
    }
    pushes.push_back(std::move(push));
  }
  return pushes;
}

DockerImagePusher::DockerImagePusher(const std::string& socket_path, double timeout_s,
                                     PushOrigin origin)
    : socket_path_(socket_path),
      origin_(std::move(origin)),
      client_(engine_endpoint(socket_path, timeout_s)) {}

http::Response DockerImagePusher::send(const http::Request& request,
                                       const http::ChunkHandler* on_chunk) {
  try {
    return on_chunk == nullptr ? client_.send(request) : client_.stream(request, *on_chunk);
  } catch (const Error& e) {
    throw Error(e.code(), origin_.option + " needs the Docker Engine: " + e.what() +
                              "; start dockerd, or point DOCKER_HOST at its socket "
                              "(DOCKER_HOST=unix:///path/to/docker.sock)");
  }
}

std::string DockerImagePusher::push(const ImagePush& push, const std::string& registry_auth,
                                    const std::string& credentials_description) {
  const std::string what =
      roles_text(push) + ": pushing image '" + push.source + "' to '" + push.target.str() + "'";
  http::Request tag;
  tag.method = "POST";
  tag.path = tag_path(push);
  const http::Response tagged = send(tag, nullptr);
  if (tagged.status == 404) {
    throw Error::failed_precondition(what + ": " + engine_message(tagged, tagged.body) +
                                     " in the Docker Engine at unix://" + socket_path_ +
                                     "; build or pull the image there first");
  }
  if (!tagged.ok()) {
    throw Error(tagged.status >= 500 ? Code::kUnavailable : Code::kInvalidArgument,
                what + ": tagging failed: " + engine_message(tagged, tagged.body));
  }

  // The push answers 200 at once and streams JSON progress lines; a failure is a line with
  // "error", and success ends with an "aux" line carrying the digest.
  http::Request request;
  request.method = "POST";
  request.path = push_path(push);
  request.headers.emplace_back("X-Registry-Auth", registry_auth);
  std::string pending;
  std::string body;
  std::string error;
  std::string digest;
  const auto read_line = [&](const std::string& line) {
    rapidjson::Document progress;
    progress.Parse(line.c_str());
    if (progress.HasParseError() || !progress.IsObject()) return;
    if (const rapidjson::Value* text = plugins_common::find_member(progress, "error");
        text != nullptr && text->IsString() && error.empty()) {
      error = text->GetString();
    }
    if (const rapidjson::Value* aux = plugins_common::find_member(progress, "aux");
        aux != nullptr) {
      digest = plugins_common::string_member(*aux, "Digest", "push progress", digest);
    }
  };
  const http::ChunkHandler on_chunk = [&](std::string_view chunk) {
    if (body.size() < kMaxErrorBody) body.append(chunk.substr(0, kMaxErrorBody - body.size()));
    pending.append(chunk);
    for (size_t end = pending.find('\n'); end != std::string::npos; end = pending.find('\n')) {
      read_line(pending.substr(0, end));
      pending.erase(0, end + 1);
    }
    return true;
  };
  const http::Response pushed = send(request, &on_chunk);
  if (!pending.empty()) read_line(pending);
  if (!pushed.ok()) {
    throw Error(pushed.status >= 500 ? Code::kUnavailable : Code::kInvalidArgument,
                what + " failed: " + engine_message(pushed, body));
  }
  if (!error.empty()) {
    throw Error(
        code_for_registry_error(error),
        what + " failed: " + error + " (registry credentials: " + credentials_description + ")");
  }
  if (digest.empty()) {
    throw Error::unavailable(what +
                             ": the Docker Engine ended the push without reporting a digest");
  }
  return digest;
}

std::vector<std::string> DockerImagePusher::entrypoint_of(const std::string& image) {
  http::Request request;
  request.method = "GET";
  request.path = "/images/" + image + "/json";
  const http::Response answer = send(request, nullptr);
  if (answer.status == 404) {
    throw Error::failed_precondition("image '" + image +
                                     "' is not in the Docker Engine at unix://" + socket_path_ +
                                     "; build or pull it there first");
  }
  if (!answer.ok()) {
    throw Error::unavailable("inspecting image '" + image +
                             "' failed: " + engine_message(answer, answer.body));
  }
  rapidjson::Document inspected;
  inspected.Parse(answer.body.c_str());
  std::vector<std::string> entrypoint;
  const rapidjson::Value* config =
      inspected.IsObject() ? plugins_common::find_member(inspected, "Config") : nullptr;
  const rapidjson::Value* words = config != nullptr && config->IsObject()
                                      ? plugins_common::find_member(*config, "Entrypoint")
                                      : nullptr;
  if (words != nullptr && words->IsArray()) {
    for (const rapidjson::Value& word : words->GetArray()) {
      if (word.IsString()) entrypoint.emplace_back(word.GetString(), word.GetStringLength());
    }
  }
  return entrypoint;
}

void push_images(const std::vector<ImagePush>& pushes, double timeout_s, const PushOrigin& origin,
                 const std::function<std::string()>& access_token) {
  DockerImagePusher pusher(docker_socket_from_environment(origin), timeout_s, origin);
  for (const ImagePush& push : pushes) {
    const std::string& registry = push.target.registry;
    const RegistryCredentials credentials =
        registry_credentials(registry, origin.access_token_source);
    const std::string auth = x_registry_auth(credentials, registry, access_token);
    const std::string digest = pusher.push(push, auth, credentials.description);
    Host::log(SORTIE_LOG_INFO,
              "pushed " + push.source + " to " + push.target.str() + " (" + digest + ")");
  }
}

}  // namespace sortie::image_push
