#include "image_providers.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "json_fields.hpp"

namespace sortie::local {

ImageLocation resolve_image(ImageMode mode, std::string_view role_name, std::string_view image) {
  const std::string role = "role '" + std::string(role_name) + "'";
  if (mode == ImageMode::kCwd) {
    char buffer[4096];
    if (::getcwd(buffer, sizeof(buffer)) == nullptr) {
      throw Error(
          Code::kFailedPrecondition,
          role + ": cannot determine the current working directory: " + std::strerror(errno));
    }
    return {buffer, buffer};
  }
  if (image.empty() || image[0] != '/') {
    throw Error::invalid_argument(
        role + ": image '" + std::string(image) +
        "' must be an absolute directory path (local_dir runs the role inside it)");
  }
  struct stat info {};
  if (::stat(std::string(image).c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    throw Error::not_found(role + ": image '" + std::string(image) +
                           "' is not an existing directory (local_dir runs the role "
                           "inside its image directory; create it or fix the path)");
  }
  std::string dir(image);
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return {dir, dir};
}

std::string fetch_image(ImageMode mode, std::string_view role) {
  const rapidjson::Document document = plugins_common::parse_object(role, "sortie.role/1");
  const std::string name = plugins_common::string_member(document, "name", "sortie.role/1");
  const ImageLocation location = resolve_image(
      mode, name, plugins_common::string_member(document, "image", "role '" + name + "'"));
  rapidjson::StringBuffer buffer;
  plugins_common::JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("schema");
  writer.String("sortie.image/1");
  writer.Key("img_root");
  plugins_common::write_string(writer, location.img_root);
  writer.Key("cwd");
  plugins_common::write_string(writer, location.cwd);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace sortie::local
