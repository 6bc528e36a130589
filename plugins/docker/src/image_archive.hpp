// Reads what a `docker save` archive holds from its manifest.json, so the container packager can
// refuse an archive of several images before loading it and name the image it loads.
#ifndef SORTIE_DOCKER_IMAGE_ARCHIVE_HPP
#define SORTIE_DOCKER_IMAGE_ARCHIVE_HPP

#include <string>
#include <string_view>
#include <vector>

namespace sortie::docker {

struct ArchivedImage {
  std::string id;                      // "sha256:<config digest>"
  std::vector<std::string> repo_tags;  // empty for an image saved by id
};

// The images listed in the archive's manifest.json. Throws INVALID_ARGUMENT naming `what` when
// it is not a docker save archive.
std::vector<ArchivedImage> read_image_archive(std::string_view archive, const std::string& what);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_IMAGE_ARCHIVE_HPP
