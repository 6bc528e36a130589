#include "context_packer.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sortie/plugin.hpp>
#include <sortie/sha256.hpp>
#include <sstream>

#include "dockerignore.hpp"
#include "tar_writer.hpp"

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

// What lstat says of a file that changes whenever its content does (up to timestamp granularity).
std::string identity_of(const struct stat& info) {
  const auto ns = [](const timespec& time) {
    return std::to_string(static_cast<int64_t>(time.tv_sec) * 1000000000 + time.tv_nsec);
  };
  return std::to_string(info.st_dev) + " " + std::to_string(info.st_ino) + " " +
         std::to_string(info.st_size) + " " + ns(info.st_mtim) + " " + ns(info.st_ctim);
}

std::string sha256_of(const std::string& data) {
  Sha256 hash;
  hash.update(data);
  return hash.hex_digest();
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

FileHashes::FileHashes(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_);
  std::string line;
  // "<sha256> <dev> <ino> <size> <mtime ns> <ctime ns> <path>" per line.
  while (std::getline(in, line)) {
    if (line.size() < 65 || line[64] != ' ') continue;
    size_t at = 64;  // then the spaces after the five numbers: the path follows the last
    for (int field = 0; field < 5 && at != std::string::npos; ++field) at = line.find(' ', at + 1);
    if (at == std::string::npos) continue;
    known_[line.substr(at + 1)] = {line.substr(65, at - 65), line.substr(0, 64)};
  }
}

std::string FileHashes::of(const std::string& path, const struct stat& info) {
  const std::string identity = identity_of(info);
  const auto known = known_.find(path);
  if (known != known_.end() && known->second.identity == identity) {
    used_[path] = known->second;
    return known->second.sha256;
  }
  const std::string sha256 = sha256_of(read_context_file(path));
  hashed_ = true;
  // A file written within the file system's timestamp granularity of the last look could change
  // again without changing its identity: such a recent file is hashed anew next time.
  const time_t settled = ::time(nullptr) - 2;
  if (info.st_mtime < settled && info.st_ctime < settled && path.find('\n') == std::string::npos) {
    used_[path] = {identity, sha256};
  }
  return sha256;
}

void FileHashes::save() const {
  if (!hashed_ && used_.size() == known_.size()) return;  // nothing new, nothing gone
  std::string text;
  for (const auto& [path, known] : used_) {
    text += known.sha256 + " " + known.identity + " " + path + "\n";
  }
  const std::string temporary = path_ + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (out && std::rename(temporary.c_str(), path_.c_str()) == 0) return;
  }
  const std::string reason = std::strerror(errno);
  std::remove(temporary.c_str());
  Host::log(SORTIE_LOG_WARNING, "cannot save the file hashes of the build context in " + path_ +
                                    " (" + reason + "); the next build reads every file again");
}

void ContextPacker::add_tree(const std::string& directory, const std::string& prefix,
                             const std::vector<std::string>& skip, const std::string& keep) {
  const std::string ignore_path = directory + "/.dockerignore";
  const DockerIgnore ignore(is_regular_file(ignore_path) ? read_context_file(ignore_path) : "");
  if (!prefix.empty()) {
    struct stat info {};
    if (::stat(directory.c_str(), &info) != 0) unreadable(directory);
    entries_.push_back(
        {.type = 'd', .name = prefix, .mode = info.st_mode & 07777u, .mtime = info.st_mtime});
    record("d", prefix, info.st_mode & 07777u, "");
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
    const std::string name_in_archive = joined(prefix, path);
    const uint32_t mode = info.st_mode & 07777u;
    if (S_ISDIR(info.st_mode)) {
      if (excluded && !ignore.has_exceptions()) continue;
      if (!excluded) {
        entries_.push_back(
            {.type = 'd', .name = name_in_archive, .mode = mode, .mtime = info.st_mtime});
        record("d", name_in_archive, mode, "");
      }
      walk(root, prefix, path, ignore, skip, keep);
    } else if (excluded) {
      continue;
    } else if (S_ISREG(info.st_mode)) {
      const std::string sha256 =
          hashes_ != nullptr ? hashes_->of(full, info) : sha256_of(read_context_file(full));
      entries_.push_back({.type = 'f',
                          .name = name_in_archive,
                          .mode = mode,
                          .mtime = info.st_mtime,
                          .source = full,
                          .info = info,
                          .sha256 = sha256});
      record("f", name_in_archive, mode, sha256);
      ++files_;
    } else if (S_ISLNK(info.st_mode)) {
      char target[4096];
      const ssize_t length = ::readlink(full.c_str(), target, sizeof(target));
      if (length < 0) unreadable(full);
      const std::string link(target, static_cast<size_t>(length));
      entries_.push_back({.type = 'l',
                          .name = name_in_archive,
                          .mode = 0777,
                          .mtime = info.st_mtime,
                          .content = link});
      record("l", name_in_archive, 0777, link);
    }
    // Sockets, FIFOs and devices cannot be copied into an image; the docker CLI skips them too.
  }
}

void ContextPacker::add_file(const std::string& path, uint32_t mode, int64_t mtime,
                             const std::string& data) {
  entries_.push_back({.type = 'f', .name = path, .mode = mode, .mtime = mtime, .content = data});
  record("f", path, mode, sha256_of(data));
  ++files_;
}

void ContextPacker::record(const char* type, const std::string& path, uint32_t mode,
                           std::string_view data) {
  hash_input_ += std::string(type) + " " + std::to_string(mode) + " " + path + "\n";
  hash_input_.append(data);
  hash_input_ += "\n";
}

std::string ContextPacker::finish_tar() {
  TarWriter tar;
  for (const Entry& entry : entries_) {
    if (entry.type == 'd') {
      tar.add_directory(entry.name, entry.mode, entry.mtime);
    } else if (entry.type == 'l') {
      tar.add_symlink(entry.name, entry.content, entry.mtime);
    } else if (entry.source.empty()) {
      tar.add_file(entry.name, entry.mode, entry.mtime, entry.content);
    } else {
      const std::string data = read_context_file(entry.source);
      struct stat now {};
      const bool same_file =
          ::lstat(entry.source.c_str(), &now) == 0 && identity_of(now) == identity_of(entry.info);
      if (!same_file && sha256_of(data) != entry.sha256) {
        throw Error::failed_precondition("build context: '" + entry.source +
                                         "' changed while it was being packed; run again once "
                                         "nothing writes to it");
      }
      tar.add_file(entry.name, entry.mode, entry.mtime, data);
    }
  }
  return tar.finish();
}

}  // namespace sortie::docker
