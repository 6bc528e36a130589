#include "workspace.hpp"

#include <sortie/sha256.hpp>

namespace sortie::docker {
namespace {

constexpr const char* kGeneratedDockerfile = ".sortie-workspace.Dockerfile";
constexpr const char* kDefaultDockerfile = "ARG IMAGE\nFROM $IMAGE\nCOPY . .\n";

}  // namespace

BuildContext pack_workspace(const std::string& directory, const std::string& base_image,
                            const std::string& base_image_id, FileHashes* hashes,
                            const std::vector<std::string>& skip) {
  BuildContext context(hashes);
  for (const char* candidate : {"Dockerfile.sortie", "Dockerfile.torchx"}) {
    if (context.dockerfile.empty() && is_regular_file(directory + "/" + candidate)) {
      context.dockerfile = candidate;
    }
  }
  const bool generated = context.dockerfile.empty();
  if (generated) context.dockerfile = kGeneratedDockerfile;

  std::vector<std::string> left_out = skip;
  left_out.emplace_back(kGeneratedDockerfile);
  ContextPacker& packer = context.packer;
  packer.add_tree(directory, "", left_out, context.dockerfile);
  if (generated) packer.add_file(kGeneratedDockerfile, 0644, 0, kDefaultDockerfile);
  // The Engine reads the Dockerfile, then drops it and this file from what COPY sees; the
  // workspace's own .dockerignore was already applied above.
  packer.add_file(".dockerignore", 0644, 0, ".dockerignore\n" + context.dockerfile + "\n");

  Sha256 hash;
  hash.update("sortie-workspace/1\n" + base_image + "\n" + base_image_id + "\n");
  hash.update(packer.hash_input());
  context.digest = hash.hex_digest();
  context.files = packer.files() - 1 - (generated ? 1 : 0);
  return context;
}

std::string workspace_image_name(const std::string& digest) {
  return "sortie-workspace:" + digest.substr(0, 32);
}

}  // namespace sortie::docker
