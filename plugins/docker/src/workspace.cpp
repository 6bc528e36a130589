#include "workspace.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sortie/plugin.hpp>
#include <sstream>
#include <vector>

#include "dockerignore.hpp"
#include "sha256.hpp"
#include "tar_writer.hpp"

namespace sortie::docker {
namespace {

constexpr const char* kGeneratedDockerfile = ".sortie-workspace.Dockerfile";
constexpr const char* kDefaultDockerfile = "ARG IMAGE\nFROM $IMAGE\nCOPY . .\n";

[[noreturn]] void unreadable(const std::string& path) {
  throw Error(Code::kFailedPrecondition, "workspace: cannot read '" + path +
                                             "': " + std::strerror(errno) +
                                             " (fix its permissions or list it in .dockerignore)");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) unreadable(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

class Packer {
 public:
  Packer(std::string root, const DockerIgnore& ignore, std::string keep)
      : root_(std::move(root)), ignore_(ignore), keep_(std::move(keep)) {}

  // Adds the entries below `relative` ("" for the root), sorted so the hash is stable.
  void walk(const std::string& relative) {
    const std::string directory = relative.empty() ? root_ : root_ + "/" + relative;
    std::vector<std::string> names;
    DIR* dir = ::opendir(directory.c_str());
    if (dir == nullptr) unreadable(directory);
    while (const dirent* entry = ::readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(dir);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      const std::string path = relative.empty() ? name : relative + "/" + name;
      if (path == ".dockerignore" || path == kGeneratedDockerfile) continue;  // replaced below
      const std::string full = root_ + "/" + path;
      struct stat info {};
      if (::lstat(full.c_str(), &info) != 0) unreadable(full);
      const bool skip = ignore_.excluded(path) && path != keep_;
      if (S_ISDIR(info.st_mode)) {
        if (skip && !ignore_.has_exceptions()) continue;
        if (!skip) add_directory(path, info);
        walk(path);
      } else if (skip) {
        continue;
      } else if (S_ISREG(info.st_mode)) {
        add_file(path, info.st_mode & 07777, info.st_mtime, read_file(full));
      } else if (S_ISLNK(info.st_mode)) {
        char target[4096];
        const ssize_t length = ::readlink(full.c_str(), target, sizeof(target));
        if (length < 0) unreadable(full);
        const std::string_view link(target, static_cast<size_t>(length));
        tar_.add_symlink(path, link, info.st_mtime);
        record("l", path, 0777, link);
      }
      // Sockets, FIFOs and devices cannot be copied into an image; the docker CLI skips them too.
    }
  }

  void add_file(const std::string& path, uint32_t mode, int64_t mtime, const std::string& data) {
    tar_.add_file(path, mode, mtime, data);
    Sha256 content;
    content.update(data);
    record("f", path, mode, content.hex_digest());
    ++files_;
  }

  std::string finish_tar() { return tar_.finish(); }
  std::string hash_input() const { return hash_input_; }
  size_t files() const { return files_; }

 private:
  void add_directory(const std::string& path, const struct stat& info) {
    tar_.add_directory(path, info.st_mode & 07777, info.st_mtime);
    record("d", path, info.st_mode & 07777, "");
  }
  void record(const char* type, const std::string& path, uint32_t mode, std::string_view data) {
    hash_input_ += std::string(type) + " " + std::to_string(mode) + " " + path + "\n";
    hash_input_.append(data);
    hash_input_ += "\n";
  }

  std::string root_;
  const DockerIgnore& ignore_;
  std::string keep_;
  TarWriter tar_;
  std::string hash_input_;
  size_t files_ = 0;
};

}  // namespace

BuildContext pack_workspace(const std::string& directory, const std::string& base_image,
                            const std::string& base_image_id) {
  const std::string ignore_path = directory + "/.dockerignore";
  const DockerIgnore ignore(is_file(ignore_path) ? read_file(ignore_path) : "");
  BuildContext context;
  for (const char* candidate : {"Dockerfile.sortie", "Dockerfile.torchx"}) {
    if (context.dockerfile.empty() && is_file(directory + "/" + candidate)) {
      context.dockerfile = candidate;
    }
  }
  const bool generated = context.dockerfile.empty();
  if (generated) context.dockerfile = kGeneratedDockerfile;

  Packer packer(directory, ignore, context.dockerfile);
  packer.walk("");
  if (generated) packer.add_file(kGeneratedDockerfile, 0644, 0, kDefaultDockerfile);
  // The Engine reads the Dockerfile, then drops it and this file from what COPY sees; the
  // workspace's own .dockerignore was already applied above.
  packer.add_file(".dockerignore", 0644, 0, ".dockerignore\n" + context.dockerfile + "\n");

  Sha256 hash;
  hash.update("sortie-workspace/1\n" + base_image + "\n" + base_image_id + "\n");
  hash.update(packer.hash_input());
  context.digest = hash.hex_digest();
  context.files = packer.files() - 1 - (generated ? 1 : 0);
  context.tar = packer.finish_tar();
  return context;
}

std::string workspace_image_name(const std::string& digest) {
  return "sortie-workspace:" + digest.substr(0, 32);
}

}  // namespace sortie::docker
