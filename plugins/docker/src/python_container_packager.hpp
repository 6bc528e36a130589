// The `python_container` packager (XManager's PythonContainer): the project directory `path`
// (default launch_dir, .dockerignore honoured) built over `base_image` with a generated
// Dockerfile and entrypoint.sh (python_container.hpp), tagged sortie-xm/<name>:<content hash>
// like the dockerfile packager's images. The result keeps the image's ENTRYPOINT (entrypoint
// null): the job's args reach the module or the last command.
#ifndef SORTIE_DOCKER_PYTHON_CONTAINER_PACKAGER_HPP
#define SORTIE_DOCKER_PYTHON_CONTAINER_PACKAGER_HPP

#include <sortie/plugin.hpp>
#include <string>
#include <string_view>

namespace sortie::docker {

class PythonContainerPackager : public Packager {
 public:
  // config: "sortie.packager_config/1".
  explicit PythonContainerPackager(std::string_view config);
  // request: "sortie.package_request/1" of python_container executables.
  std::string package(std::string_view request) override;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_PYTHON_CONTAINER_PACKAGER_HPP
