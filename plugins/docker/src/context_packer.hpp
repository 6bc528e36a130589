// Packs a directory into a Docker build context (an in-memory tar) the way the docker CLI would:
// only what the directory's .dockerignore lets through, symlinks kept as links, sockets and
// devices skipped. Every entry (type, mode, path, content hash) is also recorded, sorted, so the
// recorded text hashes the context's content independently of mtimes and readdir order.
#ifndef SORTIE_DOCKER_CONTEXT_PACKER_HPP
#define SORTIE_DOCKER_CONTEXT_PACKER_HPP

#include <cstdint>
#include <string>
#include <vector>

#include "tar_writer.hpp"

namespace sortie::docker {

class DockerIgnore;

// The whole file; throws FAILED_PRECONDITION naming the path that cannot be read.
std::string read_context_file(const std::string& path);
bool is_regular_file(const std::string& path);
bool is_directory(const std::string& path);

class ContextPacker {
 public:
  // Adds what `directory`'s .dockerignore lets through, under `prefix` in the archive ("" for the
  // archive root). `keep` (relative to directory) is added even when excluded; the names in
  // `skip`, relative to directory, are left out (the caller adds its own version of them). The
  // .dockerignore itself is never added: the Engine would apply it to the whole archive.
  void add_tree(const std::string& directory, const std::string& prefix,
                const std::vector<std::string>& skip = {}, const std::string& keep = "");
  void add_file(const std::string& path, uint32_t mode, int64_t mtime, const std::string& data);

  // "<type> <mode> <path>\n<content sha256 or link target>\n" per entry, in archive order.
  const std::string& hash_input() const { return hash_input_; }
  size_t files() const { return files_; }
  // The archive. Call once, last.
  std::string finish_tar() { return tar_.finish(); }

 private:
  void walk(const std::string& root, const std::string& prefix, const std::string& relative,
            const DockerIgnore& ignore, const std::vector<std::string>& skip,
            const std::string& keep);
  void add_directory(const std::string& path, uint32_t mode, int64_t mtime);
  void record(const char* type, const std::string& path, uint32_t mode, std::string_view data);

  TarWriter tar_;
  std::string hash_input_;
  size_t files_ = 0;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_CONTEXT_PACKER_HPP
