// Before a remote scheduler creates the job that pulls them, each role's locally built image is
// tagged with its remote reference and pushed through the Docker Engine HTTP API on its unix
// socket (POST /images/{name}/tag, then POST /images/{name}/push with X-Registry-Auth), so that
// the cluster can pull it. The docker CLI is not involved. Used by the vertex (push_image_tag)
// and kubernetes (image_repo) schedulers.
#ifndef SORTIE_IMAGE_PUSH_IMAGE_PUSH_HPP
#define SORTIE_IMAGE_PUSH_IMAGE_PUSH_HPP

#include <rapidjson/document.h>

#include <functional>
#include <sortie/http_client.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "image_reference.hpp"

namespace sortie::image_push {

// Who asks for the pushes, for messages: the scheduler and its run option.
struct PushOrigin {
  std::string scheduler;  // "vertex"
  std::string option;     // "push_image_tag"
  // What Google's registries take as a password ("the Vertex AI access token"); empty: none.
  std::string access_token_source;
};

// One local image pushed to one tag, for every role that names both.
struct ImagePush {
  std::string source;  // the roles' image, as the Engine knows it locally
  ImageReference target;
  std::vector<std::string> roles;
};

// The socket named by DOCKER_HOST ("unix:///path"), else /var/run/docker.sock. Another scheme is
// an INVALID_ARGUMENT error naming DOCKER_HOST.
std::string docker_socket_from_environment(const PushOrigin& origin);

// The Engine requests of the pushes, as a dry run shows them (credentials by source only).
std::string image_pushes_text(const std::vector<ImagePush>& pushes, const std::string& socket_path,
                              const PushOrigin& origin);

rapidjson::Value image_pushes_to_json(const std::vector<ImagePush>& pushes,
                                      rapidjson::Document::AllocatorType& alloc);
// Reads what image_pushes_to_json wrote; INVALID_ARGUMENT naming `what` otherwise.
std::vector<ImagePush> image_pushes_from_json(const rapidjson::Value& value, std::string_view what);

class DockerImagePusher {
 public:
  // timeout_s bounds each Engine request, the push included.
  DockerImagePusher(const std::string& socket_path, double timeout_s, PushOrigin origin);

  // Tags push.source as push.target and pushes it, presenting registry_auth (an X-Registry-Auth
  // value) to the registry; credentials_description says where that came from, for errors.
  // Returns the digest the registry stored. Throws UNAVAILABLE naming DOCKER_HOST when the Engine
  // cannot be reached, FAILED_PRECONDITION when the image is not in the Engine, and the Engine's
  // own error text when the registry refuses.
  std::string push(const ImagePush& push, const std::string& registry_auth,
                   const std::string& credentials_description);

  // The ENTRYPOINT of a local image (its Config.Entrypoint), empty where it has none; for a role
  // that runs it and whose command must be wrapped (late bindings). FAILED_PRECONDITION when the
  // image is not in the Engine.
  std::vector<std::string> entrypoint_of(const std::string& image);

 private:
  http::Response send(const http::Request& request, const http::ChunkHandler* on_chunk);

  std::string socket_path_;
  PushOrigin origin_;
  http::Client client_;
};

// Pushes each in order, every image in its registry before the job that pulls it exists, and logs
// the digests. access_token is called only for a registry that takes origin.access_token_source.
void push_images(const std::vector<ImagePush>& pushes, double timeout_s, const PushOrigin& origin,
                 const std::function<std::string()>& access_token);

}  // namespace sortie::image_push

#endif  // SORTIE_IMAGE_PUSH_IMAGE_PUSH_HPP
