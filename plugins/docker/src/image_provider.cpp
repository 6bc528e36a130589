#include "image_provider.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine.hpp"
#include "image_transfer.hpp"
#include "json_fields.hpp"
#include "workspace.hpp"

namespace sortie::docker {
namespace {

std::string working_directory() {
  char buffer[4096];
  if (::getcwd(buffer, sizeof(buffer)) == nullptr) {
    throw Error::failed_precondition(
        std::string("docker image provider: cannot read the working directory: ") +
        std::strerror(errno));
  }
  return buffer;
}

}  // namespace

DockerImageProvider::DockerImageProvider(std::string_view config) {
  parse_object(config, "sortie.image_provider_config/1");
}

std::string DockerImageProvider::fetch(std::string_view role_text) {
  const rapidjson::Document role = parse_object(role_text, "sortie.role/1");
  const std::string name = string_member(role, "name", "sortie.role/1");
  const std::string image = string_member(role, "image", "role '" + name + "'");
  if (image.empty()) {
    throw Error::invalid_argument(
        "role '" + name +
        "': field 'image' is required; the docker image provider lays the working "
        "directory over it");
  }
  check_image_reference(image, "role '" + name + "' image");
  const std::string workspace = working_directory();
  Engine engine(docker_socket_from_environment());
  ensure_image(engine, image);
  const rapidjson::Document base = engine.expect_json(
      "GET", "/images/" + http::url_encode(image) + "/json", "inspecting image " + image);
  const BuildContext context = pack_workspace(workspace, image, string_member(base, "Id", "image"));
  const std::string tag = workspace_image_name(context.digest);

  if (image_exists(engine, tag)) {
    Host::log(SORTIE_LOG_INFO, "workspace " + workspace + " unchanged: reusing " + tag);
  } else {
    Host::log(SORTIE_LOG_INFO, "building " + tag + ": workspace " + workspace + " (" +
                                   std::to_string(context.files) + " files) over " + image);
    const std::string build_args =
        R"({"IMAGE":)" + quote(image) + R"(,"WORKSPACE":)" + quote(workspace) + "}";
    const std::string labels = R"({"sortie.workspace":)" + quote(workspace) +
                               R"(,"sortie.workspace.base":)" + quote(image) + "}";
    http::Request request;
    request.method = "POST";
    request.path = "/build?t=" + http::url_encode(tag) +
                   "&dockerfile=" + http::url_encode(context.dockerfile) +
                   "&buildargs=" + http::url_encode(build_args) +
                   "&labels=" + http::url_encode(labels) + "&rm=1&forcerm=1";
    request.body = context.tar;
    request.content_type = "application/x-tar";
    ProgressReader progress("building " + tag);
    const http::Response response = progress.stream(engine, request);
    if (!response.ok() || !progress.error().empty()) {
      throw Error::failed_precondition(
          "role '" + name + "': building the workspace image over " + image + " failed: " +
          (progress.error().empty() ? engine_message(progress.error_body()) : progress.error()));
    }
  }
  const rapidjson::Document built = engine.expect_json(
      "GET", "/images/" + http::url_encode(tag) + "/json", "inspecting image " + tag);
  std::string workdir;
  if (const rapidjson::Value* config = object_member(built, "Config", "image")) {
    workdir = string_member(*config, "WorkingDir", "image Config");
  }
  if (workdir.empty()) workdir = "/";
  return R"({"schema":"sortie.image/1","img_root":)" + quote(workdir) + R"(,"cwd":)" +
         quote(workdir) + R"(,"image":)" + quote(tag) + "}";
}

}  // namespace sortie::docker
