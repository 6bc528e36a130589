// Packs a workspace directory into the build context that lays it over a role's image: the
// files .dockerignore lets through, plus a Dockerfile (the workspace's Dockerfile.sortie or
// TorchX's Dockerfile.torchx, else "ARG IMAGE / FROM $IMAGE / COPY . ."), and a content hash
// of all that and the base image, which names the resulting image so an unchanged workspace is
// never rebuilt.
#ifndef SORTIE_DOCKER_WORKSPACE_HPP
#define SORTIE_DOCKER_WORKSPACE_HPP

#include <string>
#include <vector>

#include "context_packer.hpp"

namespace sortie::docker {

struct BuildContext {
  explicit BuildContext(FileHashes* hashes) : packer(hashes) {}
  ContextPacker packer;    // packer.finish_tar() is the context archive
  std::string dockerfile;  // its Dockerfile's name inside the archive
  std::string digest;      // sha256 hex of the content, the base image name and id
  size_t files = 0;
};

// `hashes` (may be null) remembers file hashes between runs; `skip` lists paths relative to the
// directory that are left out (sortie's own state). Throws FAILED_PRECONDITION naming the path
// that cannot be read.
BuildContext pack_workspace(const std::string& directory, const std::string& base_image,
                            const std::string& base_image_id, FileHashes* hashes,
                            const std::vector<std::string>& skip);

// The name of a workspace image: "sortie-workspace:<first 32 hex digits of the digest>".
std::string workspace_image_name(const std::string& digest);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_WORKSPACE_HPP
