#include "container_packager.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sortie/sha256.hpp>
#include <sstream>

#include "context_packer.hpp"
#include "image_archive.hpp"
#include "image_transfer.hpp"
#include "json_fields.hpp"

namespace sortie::docker {
namespace {

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error::failed_precondition("cannot read '" + path + "': " + std::strerror(errno) +
                                     "; fix its permissions");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Where the load of the archive with this sha256 is remembered: {"image": ..., "id": ...}.
std::string load_record_path(const std::string& state_dir, const std::string& archive_sha256) {
  return state_dir + "/loaded/" + archive_sha256 + ".json";
}

void write_load_record(const std::string& path, const PackagedImage& image) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  const std::string temporary = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << R"({"image":)" << plugins_common::quote(image.image) << R"(,"id":)"
        << plugins_common::quote(image.digest) << "}";
    if (!out) {
      throw Error::failed_precondition("container packager: cannot write '" + temporary +
                                       "': " + std::strerror(errno));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw Error::failed_precondition("container packager: cannot write '" + path + "': " + reason);
  }
}

// True when image_path names a file rather than a registry reference.
bool looks_like_a_path(const std::string& image_path) {
  const auto ends_with = [&](std::string_view suffix) {
    return image_path.size() >= suffix.size() &&
           image_path.compare(image_path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return image_path[0] == '/' || image_path[0] == '.' || image_path[0] == '~' ||
         ends_with(".tar") || ends_with(".tar.gz") || ends_with(".tgz");
}

}  // namespace

ContainerPackager::ContainerPackager(std::string_view config)
    : config_(read_packager_config(config, "container")) {}

std::string ContainerPackager::package(std::string_view request_text) {
  const PackageRequest request(request_text, "container", {"image_path"});
  Engine engine(docker_socket_from_environment());
  return package_each(request, [&](size_t index) {
    const std::string image_path = plugins_common::string_member(
        request.executable(index), "image_path", request.describe(index));
    if (image_path.empty()) {
      throw Error::invalid_argument(
          "member 'image_path' is required: an image reference (busybox:1.36) or a file "
          "made by docker save");
    }
    const std::string file = request.resolve(image_path);
    if (is_regular_file(file)) return load_archive(engine, file);
    if (looks_like_a_path(image_path)) {
      throw Error::not_found("image_path '" + image_path + "': no file at " + file +
                             "; save the image there (docker save -o " + file +
                             " IMAGE) or name an image reference");
    }
    check_image_reference(image_path, "image_path");
    return use_reference(engine, image_path);
  });
}

PackagedImage ContainerPackager::load_archive(Engine& engine, const std::string& path) {
  const std::string archive = read_whole_file(path);
  Sha256 hash;
  hash.update(archive);
  const std::string archive_sha256 = hash.hex_digest();
  const std::string record_path =
      config_.state_dir.empty() ? "" : load_record_path(config_.state_dir, archive_sha256);

  if (!record_path.empty() && is_regular_file(record_path)) {
    const std::string what = "container packager record " + record_path;
    const rapidjson::Document record =
        plugins_common::parse_object(read_whole_file(record_path), what);
    PackagedImage remembered{plugins_common::string_member(record, "image", what),
                             plugins_common::string_member(record, "id", what), true};
    if (!remembered.image.empty() &&
        local_image_id(engine, remembered.image) == remembered.digest) {
      Host::log(SORTIE_LOG_INFO, path + " unchanged: reusing " + remembered.image);
      return remembered;
    }
  }

  const std::vector<ArchivedImage> images = read_image_archive(archive, path);
  if (images.size() != 1) {
    throw Error::invalid_argument(
        path + " holds " + std::to_string(images.size()) +
        " images; a container executable loads exactly one (docker save ONE image)");
  }
  Host::log(SORTIE_LOG_INFO, "loading " + path);
  http::Request load;
  load.method = "POST";
  load.path = "/images/load?quiet=1";
  load.body = archive;
  load.content_type = "application/x-tar";
  ProgressReader progress("loading " + path);
  const http::Response response = engine.stream(load, [&](std::string_view chunk) {
    progress.feed(chunk);
    return true;
  });
  progress.finish();
  if (!response.ok() || !progress.error().empty()) {
    throw Error::failed_precondition(
        "loading " + path + " into the Docker Engine failed: " + progress.failure(response));
  }
  PackagedImage loaded;
  loaded.image = images[0].repo_tags.empty() ? images[0].id : images[0].repo_tags[0];
  loaded.digest = local_image_id(engine, loaded.image);
  if (loaded.digest.empty()) {
    throw Error::internal("the Docker Engine loaded " + path + " but has no image " + loaded.image);
  }
  if (!record_path.empty()) write_load_record(record_path, loaded);
  return loaded;
}

PackagedImage ContainerPackager::use_reference(Engine& engine, const std::string& image) {
  PackagedImage packaged;
  packaged.image = image;
  packaged.cached = image_exists(engine, image);
  if (!packaged.cached) ensure_image(engine, image);
  packaged.digest = local_image_id(engine, image);
  return packaged;
}

}  // namespace sortie::docker
