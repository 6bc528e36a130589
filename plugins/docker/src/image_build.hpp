// Content-addressed image builds for the dockerfile and python_container packagers: the image is
// tagged by a hash of what goes into it (the build context's entries, the Dockerfile and the ids
// of its local base images), so the same inputs reuse the image built before and never rebuild.
#ifndef SORTIE_DOCKER_IMAGE_BUILD_HPP
#define SORTIE_DOCKER_IMAGE_BUILD_HPP

#include <string>
#include <string_view>
#include <vector>

#include "context_packer.hpp"
#include "engine.hpp"

namespace sortie::docker {

// The images a Dockerfile builds FROM, in order, without build stages, `scratch` and references
// that use build arguments ($VAR).
std::vector<std::string> dockerfile_base_images(std::string_view dockerfile);

// sha256 hex of the Dockerfile, the context's recorded entries (ContextPacker::hash_input) and
// the id of every base image the Engine has (an absent one counts by name: the build pulls it).
std::string build_digest(Engine& engine, std::string_view dockerfile,
                         std::string_view context_entries);

// "sortie-xm/<name>:<first 16 hex digits of digest>", the name lower-cased with characters a
// repository path cannot hold replaced by '-'.
std::string content_image_name(std::string_view name, const std::string& digest);

struct BuiltImage {
  std::string id;  // "sha256:..."
  bool cached = false;
};

// Builds the context (whose Dockerfile is `dockerfile` inside it) as `tag`, unless the Engine
// already has `tag`; only a build makes the archive. Progress goes to the host log at INFO. A
// failed build throws FAILED_PRECONDITION with the Engine's error and the last lines the build
// printed.
BuiltImage build_or_reuse(Engine& engine, const std::string& tag, ContextPacker& context,
                          const std::string& dockerfile);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_IMAGE_BUILD_HPP
