// The "docker" image provider (default for local_docker): lays the working directory over the
// role's image through the Engine's build endpoint, as `torchx run -s local_docker` does with its
// workspace. The image is named by the content hash (workspace.hpp), so an unchanged workspace
// reuses the image built before; the file hashes kept in the state directory make finding that
// out a directory walk. Answers sortie.image/1 with the extra member "image".
#ifndef SORTIE_DOCKER_IMAGE_PROVIDER_HPP
#define SORTIE_DOCKER_IMAGE_PROVIDER_HPP

#include <sortie/plugin.hpp>
#include <string>
#include <string_view>

namespace sortie::docker {

class DockerImageProvider : public ImageProvider {
 public:
  explicit DockerImageProvider(std::string_view config);
  // role: "sortie.role/1"; returns "sortie.image/1" plus "image".
  std::string fetch(std::string_view role) override;

 private:
  std::string state_dir_;  // "" keeps no file hashes and takes no lock
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_IMAGE_PROVIDER_HPP
