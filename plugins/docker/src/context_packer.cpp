#include "context_packer.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sortie/plugin.hpp>
#include <sortie/sha256.hpp>
#include <sstream>

#include "dockerignore.hpp"

namespace sortie::docker {
namespace {

[[noreturn]] void unreadable(const std::string& path) {
  throw Error::failed_precondition("build context: cannot read '" + path +
                                   "': " + std::strerror(errno) +
                                   " (fix its permissions or list it in .dockerignore)");
}

std::string joined(const std::string& prefix, const std::string& path) {
  return prefix.empty() ? path : prefix + "/" + path;
}

}  // namespace

std::string read_context_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) unreadable(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool is_regular_file(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool is_directory(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

void ContextPacker::add_tree(const std::string& directory, const std::string& prefix,
                             const std::vector<std::string>& skip, const std::string& keep) {
  const std::string ignore_path = directory + "/.dockerignore";
  const DockerIgnore ignore(is_regular_file(ignore_path) ? read_context_file(ignore_path) : "");
  if (!prefix.empty()) {
    struct stat info {};
    if (::stat(directory.c_str(), &info) != 0) unreadable(directory);
    add_directory(prefix, info.st_mode & 07777, info.st_mtime);
  }
  walk(directory, prefix, "", ignore, skip, keep);
}

// Adds the entries below `relative` ("" for the root), sorted so the hash is stable.
void ContextPacker::walk(const std::string& root, const std::string& prefix,
                         const std::string& relative, const DockerIgnore& ignore,
                         const std::vector<std::string>& skip, const std::string& keep) {
  const std::string directory = relative.empty() ? root : root + "/" + relative;
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
    if (path == ".dockerignore" || std::find(skip.begin(), skip.end(), path) != skip.end()) {
      continue;
    }
    const std::string full = root + "/" + path;
    struct stat info {};
    if (::lstat(full.c_str(), &info) != 0) unreadable(full);
    const bool excluded = ignore.excluded(path) && path != keep;
    if (S_ISDIR(info.st_mode)) {
      if (excluded && !ignore.has_exceptions()) continue;
      if (!excluded) add_directory(joined(prefix, path), info.st_mode & 07777, info.st_mtime);
      walk(root, prefix, path, ignore, skip, keep);
    } else if (excluded) {
      continue;
    } else if (S_ISREG(info.st_mode)) {
      add_file(joined(prefix, path), info.st_mode & 07777, info.st_mtime, read_context_file(full));
    } else if (S_ISLNK(info.st_mode)) {
      char target[4096];
      const ssize_t length = ::readlink(full.c_str(), target, sizeof(target));
      if (length < 0) unreadable(full);
      const std::string_view link(target, static_cast<size_t>(length));
      tar_.add_symlink(joined(prefix, path), link, info.st_mtime);
      record("l", joined(prefix, path), 0777, link);
    }
    // Sockets, FIFOs and devices cannot be copied into an image; the docker CLI skips them too.
  }
}

void ContextPacker::add_file(const std::string& path, uint32_t mode, int64_t mtime,
                             const std::string& data) {
  tar_.add_file(path, mode, mtime, data);
  Sha256 content;
  content.update(data);
  record("f", path, mode, content.hex_digest());
  ++files_;
}

void ContextPacker::add_directory(const std::string& path, uint32_t mode, int64_t mtime) {
  tar_.add_directory(path, mode, mtime);
  record("d", path, mode, "");
}

void ContextPacker::record(const char* type, const std::string& path, uint32_t mode,
                           std::string_view data) {
  hash_input_ += std::string(type) + " " + std::to_string(mode) + " " + path + "\n";
  hash_input_.append(data);
  hash_input_ += "\n";
}

}  // namespace sortie::docker
