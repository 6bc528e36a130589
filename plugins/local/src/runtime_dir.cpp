#include "runtime_dir.hpp"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <sortie/plugin.hpp>

#include "app_notify.hpp"
#include "file_util.hpp"
#include "start_failure.hpp"

namespace sortie::local {
namespace {

constexpr const char* kRunLink = "/run";
constexpr const char* kStateFile = "/state.json";

// $XDG_RUNTIME_DIR/sortie when $XDG_RUNTIME_DIR is an absolute path to a directory owned by us
// with mode 0700 (what the XDG spec promises, checked rather than trusted), else "".
std::string runtime_root() {
  // Like the store's location, ignored in setuid/setgid processes.
  const char* base = ::secure_getenv("XDG_RUNTIME_DIR");
  if (base == nullptr || base[0] != '/') return {};
  struct stat info {};
  if (::lstat(base, &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid() ||
      (info.st_mode & 0777) != 0700) {
    return {};
  }
  const std::string root = std::string(base) + "/sortie";
  if (::mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) return {};
  if (::lstat(root.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != ::geteuid()) {
    return {};
  }
  return root;
}

}  // namespace

std::string create_runtime_dir(const std::string& app_dir, const std::string& app_id) {
  const std::string root = runtime_root();
  if (root.empty()) return app_dir;
  // Unique even where app ids repeat across state directories; mkdtemp makes it 0700.
  std::string dir = root + "/" + app_id + "-XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) {
    throw_errno("cannot create the runtime directory of app '" + app_id + "' in '" + root + "'");
  }
  const std::string link = app_dir + kRunLink;
  if (::symlink(dir.c_str(), link.c_str()) != 0) {
    const int error = errno;
    ::rmdir(dir.c_str());
    errno = error;
    throw_errno("cannot create '" + link + "'");
  }
  return dir;
}

std::string runtime_dir_of(const std::string& app_dir) {
  char target[4096];
  const ssize_t n = ::readlink((app_dir + kRunLink).c_str(), target, sizeof(target) - 1);
  if (n <= 0) return app_dir;
  return std::string(target, static_cast<size_t>(n));
}

std::string writable_state_path(const std::string& app_dir) {
  const std::string runtime_dir = runtime_dir_of(app_dir);
  if (runtime_dir != app_dir && ::access(runtime_dir.c_str(), F_OK) == 0) {
    return runtime_dir + kStateFile;
  }
  return app_dir + kStateFile;
}

std::optional<std::string> read_state_text(const std::string& app_dir) {
  // The app directory's copy is written only once the app ended (or its runtime directory
  // vanished under the supervisor), and is then the last word: the `run` link of an ended app
  // still names its removed runtime directory. It is read first, and again after the runtime
  // copy was found gone, since the supervisor writes it before removing that one.
  const std::string runtime_dir = runtime_dir_of(app_dir);
  for (const std::string* dir : {&app_dir, &runtime_dir, &app_dir}) {
    try {
      return read_file(*dir + kStateFile);
    } catch (const Error& error) {
      if (error.code() != Code::kNotFound) throw;
    }
    if (runtime_dir == app_dir) break;
  }
  return std::nullopt;
}

bool retire_runtime_dir(const std::string& app_dir, const std::string& runtime_dir) {
  if (runtime_dir == app_dir) return true;
  // The `run` link stays: removing it would free an inode of the app's disk per app, and a file
  // system without a journal scans the inodes freed in the last minute at every allocation
  // (ext4's recently_deleted), which made each `sortie run` 0.4 ms slower in a loop.
  try {
    write_file_atomically(app_dir + kStateFile, read_file(runtime_dir + kStateFile));
  } catch (const Error&) {
    // An app directory that was deleted meanwhile has nobody left to read the runtime copy.
    if (::access(app_dir.c_str(), F_OK) == 0 || errno != ENOENT) return false;
  }
  for (const std::string& file : {runtime_dir + kStateFile, notify_fifo_path(runtime_dir),
                                  cancel_request_path(runtime_dir)}) {
    ::unlink(file.c_str());
  }
  ::rmdir(runtime_dir.c_str());
  return true;
}

std::string fall_back_to_app_dir(const std::string& app_dir) {
  ::unlink((app_dir + kRunLink).c_str());
  return app_dir;
}

}  // namespace sortie::local
