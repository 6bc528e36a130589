// The `container` packager (XManager's Container): `image_path` is a `docker save` archive
// (a file, relative to launch_dir) that is loaded into the Engine, or an image reference used as
// it is when local and pulled otherwise. Loads are remembered by the archive's sha256 under the
// packager's state_dir, so an unchanged archive whose image the Engine still has is not loaded
// again (cached=true).
#ifndef SORTIE_DOCKER_CONTAINER_PACKAGER_HPP
#define SORTIE_DOCKER_CONTAINER_PACKAGER_HPP

#include <sortie/plugin.hpp>
#include <string>
#include <string_view>

#include "engine.hpp"
#include "package_payloads.hpp"

namespace sortie::docker {

class ContainerPackager : public Packager {
 public:
  // config: "sortie.packager_config/1".
  explicit ContainerPackager(std::string_view config);
  // request: "sortie.package_request/1" of container executables.
  std::string package(std::string_view request) override;

 private:
  PackagedImage load_archive(Engine& engine, const std::string& path);
  PackagedImage use_reference(Engine& engine, const std::string& image);

  PackagerConfig config_;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_CONTAINER_PACKAGER_HPP
