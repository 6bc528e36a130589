// The `dockerfile` packager (XManager's Dockerfile): builds the context `path` (default
// launch_dir, .dockerignore honoured) with the Dockerfile `dockerfile` (default
// <path>/Dockerfile, which may lie outside the context) through the Engine's build endpoint. The
// image is tagged sortie-xm/<name>:<content hash> (image_build.hpp), so unchanged inputs reuse it.
#ifndef SORTIE_DOCKER_DOCKERFILE_PACKAGER_HPP
#define SORTIE_DOCKER_DOCKERFILE_PACKAGER_HPP

#include <sortie/plugin.hpp>
#include <string>
#include <string_view>

namespace sortie::docker {

class DockerfilePackager : public Packager {
 public:
  // config: "sortie.packager_config/1".
  explicit DockerfilePackager(std::string_view config);
  // request: "sortie.package_request/1" of dockerfile executables.
  std::string package(std::string_view request) override;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_DOCKERFILE_PACKAGER_HPP
