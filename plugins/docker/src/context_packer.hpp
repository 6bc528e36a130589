// Packs a directory into a Docker build context (an in-memory tar) the way the docker CLI would:
// only what the directory's .dockerignore lets through, symlinks kept as links, sockets and
// devices skipped. Every entry (type, mode, path, content hash) is also recorded, sorted, so the
// recorded text hashes the context's content independently of mtimes and readdir order. The
// archive is made only when asked for, so finding that the image of a context exists already
// costs a directory walk and the hashing of the files that changed (FileHashes), not a copy.
#ifndef SORTIE_DOCKER_CONTEXT_PACKER_HPP
#define SORTIE_DOCKER_CONTEXT_PACKER_HPP

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace sortie::docker {

class DockerIgnore;

// The whole file; throws FAILED_PRECONDITION naming the path that cannot be read.
std::string read_context_file(const std::string& path);
bool is_regular_file(const std::string& path);
bool is_directory(const std::string& path);

// Content hashes of files, remembered in a file by what lstat says of them (device, inode, size,
// mtime, ctime), so that a file unchanged since the last packing is not read again.
class FileHashes {
 public:
  // Reads what `path` remembers; a missing or unreadable file remembers nothing.
  explicit FileHashes(std::string path);
  // sha256 hex of the regular file `path` whose lstat is `info`.
  std::string of(const std::string& path, const struct stat& info);
  // Replaces the file (atomically) with the hashes asked for since construction, which drops
  // the files that are gone. A failure is logged, not thrown: it only costs a re-read.
  void save() const;

 private:
  struct Known {
    std::string identity;  // "<dev> <ino> <size> <mtime ns> <ctime ns>"
    std::string sha256;
  };
  std::string path_;
  std::unordered_map<std::string, Known> known_;  // by file path
  std::unordered_map<std::string, Known> used_;
  bool hashed_ = false;  // some file was read
};

class ContextPacker {
 public:
  // With `hashes`, the files of add_tree are hashed through it.
  explicit ContextPacker(FileHashes* hashes = nullptr) : hashes_(hashes) {}

  // Adds what `directory`'s .dockerignore lets through, under `prefix` in the archive ("" for the
  // archive root). `keep` (relative to directory) is added even when excluded; the names in
  // `skip`, relative to directory, are left out (the caller adds its own version of them, or
  // they are no content: sortie's own state). The .dockerignore itself is never added: the
  // Engine would apply it to the whole archive.
  void add_tree(const std::string& directory, const std::string& prefix,
                const std::vector<std::string>& skip = {}, const std::string& keep = "");
  void add_file(const std::string& path, uint32_t mode, int64_t mtime, const std::string& data);

  // "<type> <mode> <path>\n<content sha256 or link target>\n" per entry, in archive order.
  const std::string& hash_input() const { return hash_input_; }
  size_t files() const { return files_; }
  // The archive; the files of add_tree are read now. Throws FAILED_PRECONDITION naming a file
  // whose content changed since it was hashed (the archive would not hold what the hash says).
  // Call once.
  std::string finish_tar();

 private:
  struct Entry {
    char type = 'f';     // 'f' file, 'd' directory, 'l' symlink
    std::string name{};  // in the archive
    uint32_t mode = 0;
    int64_t mtime = 0;
    std::string content{};  // add_file's data, or the link target
    std::string source{};   // add_tree's file, read by finish_tar
    struct stat info {};    // the source's lstat when it was hashed
    std::string sha256{};   // the source's content hash
  };
  void walk(const std::string& root, const std::string& prefix, const std::string& relative,
            const DockerIgnore& ignore, const std::vector<std::string>& skip,
            const std::string& keep);
  void record(const char* type, const std::string& path, uint32_t mode, std::string_view data);

  FileHashes* hashes_;
  std::vector<Entry> entries_;
  std::string hash_input_;
  size_t files_ = 0;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_CONTEXT_PACKER_HPP
