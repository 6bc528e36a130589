#include "image_provider.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sortie/sha256.hpp>
#include <vector>

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

// Held while a workspace is packed and built: a second `sortie run` of the same workspace waits
// for the first one's build and then reuses its image instead of building it again.
class WorkspaceLock {
 public:
  WorkspaceLock(const std::string& path, const std::string& workspace)
      : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
    if (fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
    if (fd_ >= 0 && errno == EWOULDBLOCK) {
      Host::log(SORTIE_LOG_INFO, "workspace " + workspace + ": waiting for another run packing it");
      if (::flock(fd_, LOCK_EX) == 0) return;
    }
    const std::string reason = std::strerror(errno);
    if (fd_ >= 0) ::close(fd_);
    throw Error::failed_precondition("docker image provider: cannot lock " + path + ": " + reason +
                                     " (check the state directory's permissions)");
  }
  ~WorkspaceLock() { ::close(fd_); }
  WorkspaceLock(const WorkspaceLock&) = delete;
  WorkspaceLock& operator=(const WorkspaceLock&) = delete;

 private:
  int fd_;
};

// Where `inner` lies below `outer` ("a/b"), or "" when it is not strictly inside it.
std::string path_below(const std::filesystem::path& outer, const std::filesystem::path& inner) {
  const std::filesystem::path relative = inner.lexically_relative(outer);
  if (relative.empty() || relative == "." || *relative.begin() == "..") return "";
  return relative.generic_string();
}

// What the state directory keeps of a workspace: the lock, held while this object lives, and
// the file hashes of its last packing; and what of the workspace is sortie's own state.
struct WorkspaceState {
  WorkspaceState(const std::string& state_dir, const std::string& workspace) {
    if (state_dir.empty()) return;
    const std::filesystem::path state = std::filesystem::weakly_canonical(state_dir);
    std::error_code error;
    std::filesystem::create_directories(state / "workspaces", error);
    Sha256 workspace_hash;
    workspace_hash.update(workspace);
    const std::string stem =
        (state / "workspaces" / workspace_hash.hex_digest().substr(0, 32)).string();
    lock = std::make_unique<WorkspaceLock>(stem + ".lock", workspace);
    hashes = std::make_unique<FileHashes>(stem + ".hashes");
    // Sortie's state (<state>/image_providers/docker, docs/payloads.md P-4) is no content: were
    // it packed, every run would change the workspace by what it records and build anew.
    for (const std::filesystem::path& own : {state.parent_path().parent_path(), state}) {
      const std::string below = path_below(workspace, own);
      if (!below.empty()) {
        skip.push_back(below);
        break;
      }
    }
  }

  std::unique_ptr<WorkspaceLock> lock;
  std::unique_ptr<FileHashes> hashes;
  std::vector<std::string> skip;  // relative to the workspace
};

}  // namespace

DockerImageProvider::DockerImageProvider(std::string_view config) {
  const rapidjson::Document document =
      plugins_common::parse_object(config, "sortie.image_provider_config/1");
  state_dir_ =
      plugins_common::string_member(document, "state_dir", "sortie.image_provider_config/1");
}

std::string DockerImageProvider::fetch(std::string_view role_text) {
  const rapidjson::Document role = plugins_common::parse_object(role_text, "sortie.role/1");
  const std::string name = plugins_common::string_member(role, "name", "sortie.role/1");
  const std::string image = plugins_common::string_member(role, "image", "role '" + name + "'");
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

  const WorkspaceState state(state_dir_, workspace);
  BuildContext context =
      pack_workspace(workspace, image, plugins_common::string_member(base, "Id", "image"),
                     state.hashes.get(), state.skip);
  if (state.hashes) state.hashes->save();
  const std::string tag = workspace_image_name(context.digest);

  if (image_exists(engine, tag)) {
    Host::log(SORTIE_LOG_INFO, "workspace " + workspace + " unchanged: reusing " + tag);
  } else {
    Host::log(SORTIE_LOG_INFO, "building " + tag + ": workspace " + workspace + " (" +
                                   std::to_string(context.files) + " files) over " + image);
    const std::string build_args = R"({"IMAGE":)" + plugins_common::quote(image) +
                                   R"(,"WORKSPACE":)" + plugins_common::quote(workspace) + "}";
    const std::string labels = R"({"sortie.workspace":)" + plugins_common::quote(workspace) +
                               R"(,"sortie.workspace.base":)" + plugins_common::quote(image) + "}";
    http::Request request;
    request.method = "POST";
    request.path = "/build?t=" + http::url_encode(tag) +
                   "&dockerfile=" + http::url_encode(context.dockerfile) +
                   "&buildargs=" + http::url_encode(build_args) +
                   "&labels=" + http::url_encode(labels) + "&rm=1&forcerm=1";
    request.body = context.packer.finish_tar();
    request.content_type = "application/x-tar";
    ProgressReader progress("building " + tag);
    const http::Response response = progress.stream(engine, request);
    if (!response.ok() || !progress.error().empty()) {
      throw Error::failed_precondition("role '" + name + "': building the workspace image over " +
                                       image + " failed: " + progress.failure(response));
    }
  }
  const rapidjson::Document built = engine.expect_json(
      "GET", "/images/" + http::url_encode(tag) + "/json", "inspecting image " + tag);
  std::string workdir;
  if (const rapidjson::Value* config = plugins_common::object_member(built, "Config", "image")) {
    workdir = plugins_common::string_member(*config, "WorkingDir", "image Config");
  }
  if (workdir.empty()) workdir = "/";
  return R"({"schema":"sortie.image/1","img_root":)" + plugins_common::quote(workdir) +
         R"(,"cwd":)" + plugins_common::quote(workdir) + R"(,"image":)" +
         plugins_common::quote(tag) + "}";
}

}  // namespace sortie::docker
