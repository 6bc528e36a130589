#include "file_ownership.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <system_error>
#include <vector>

namespace sortie::registry::detail {
namespace {

namespace fs = std::filesystem;

// As the kernel's MAXSYMLINKS: past it the open itself fails with ELOOP.
constexpr int kMaxSymlinks = 40;

std::string owner_problem(const std::string& path, const struct stat& info) {
  if (info.st_uid == ::geteuid() || info.st_uid == 0) return "";
  return path + " is owned by another user (uid " + std::to_string(info.st_uid) +
         "); only your own or root's plugins are loaded";
}

// A directory every user may write can have its entries renamed or replaced by anyone, unless
// its sticky bit limits that to their owners (as /tmp's does); a file every user may write can
// be rewritten by anyone.
std::string entry_problem(const std::string& path, const struct stat& info) {
  const bool shared_directory = S_ISDIR(info.st_mode) && (info.st_mode & S_ISVTX) != 0;
  if ((info.st_mode & S_IWOTH) != 0 && !shared_directory) {
    return path + " is writable by every user (chmod o-w " + path + " to use it)";
  }
  return owner_problem(path, info);
}

// The components of `path` in the reverse of their order, so that the next one is back().
void push_components(const fs::path& path, std::vector<std::string>& pending) {
  std::vector<std::string> components;
  for (const fs::path& component : path.relative_path()) components.push_back(component.string());
  pending.insert(pending.end(), components.rbegin(), components.rend());
}

}  // namespace

std::string unsafe_ownership(const std::string& path) {
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  if (error) return "";
  std::vector<std::string> pending;
  push_components(absolute, pending);
  std::string resolved = "/";
  struct stat info {};
  if (::stat("/", &info) != 0) return "";
  if (std::string problem = entry_problem(resolved, info); !problem.empty()) return problem;
  int symlinks = 0;
  while (!pending.empty()) {
    const std::string name = std::move(pending.back());
    pending.pop_back();
    if (name.empty() || name == ".") continue;
    if (name == "..") {  // `resolved` holds no symbolic link, so its parent is the real one
      resolved = fs::path(resolved).parent_path().string();
      continue;
    }
    const std::string candidate = (fs::path(resolved) / name).string();
    if (::lstat(candidate.c_str(), &info) != 0) return "";  // missing: other checks report it
    if (S_ISLNK(info.st_mode)) {
      // A link's mode means nothing, but another user's link in a shared directory can be
      // pointed anywhere; what it names is walked like the rest of the path.
      if (std::string problem = owner_problem(candidate, info); !problem.empty()) return problem;
      if (++symlinks > kMaxSymlinks) {
        return path + " passes through more than " + std::to_string(kMaxSymlinks) +
               " symbolic links";
      }
      const fs::path target = fs::read_symlink(candidate, error);
      if (error) return "";
      if (target.is_absolute()) resolved = "/";
      push_components(target, pending);
      continue;
    }
    if (std::string problem = entry_problem(candidate, info); !problem.empty()) return problem;
    resolved = candidate;
  }
  return "";
}

}  // namespace sortie::registry::detail
