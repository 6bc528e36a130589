// sortie.package_result/1 (docs/payloads.md P-13) as the first-party packagers write it: one
// element per executable of the request, in the request's order.
#ifndef SORTIE_PLUGINS_COMMON_PACKAGE_RESULT_HPP
#define SORTIE_PLUGINS_COMMON_PACKAGE_RESULT_HPP

#include <optional>
#include <string>
#include <string_view>

#include "json_fields.hpp"

namespace sortie::plugins_common {

class PackageResultWriter {
 public:
  PackageResultWriter();

  // A program the scheduler runs as a process (kind "process").
  void add_process(std::string_view entrypoint, std::string_view digest, bool cached);
  // An image the local container engine has (kind "image"), run with its own entrypoint.
  void add_image(std::string_view image, std::string_view digest, bool cached);
  // A docker-save tarball, handed back as a container executable for the container packager
  // (kind "executable").
  void add_container_archive(std::string_view image_path);

  // The document; call once, after every element.
  std::string finish();

 private:
  void add_runnable(const char* kind, std::optional<std::string_view> image,
                    std::optional<std::string_view> entrypoint, std::string_view digest,
                    bool cached);

  rapidjson::StringBuffer buffer_;
  JsonWriter writer_;
};

}  // namespace sortie::plugins_common

#endif  // SORTIE_PLUGINS_COMMON_PACKAGE_RESULT_HPP
