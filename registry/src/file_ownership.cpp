#include "file_ownership.hpp"

#include <sys/stat.h>
#include <unistd.h>

namespace sortie::registry::detail {

std::string unsafe_ownership(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return "";
  if ((info.st_mode & S_IWOTH) != 0) {
    return path + " is writable by every user (chmod o-w " + path + " to use it)";
  }
  if (info.st_uid != ::geteuid() && info.st_uid != 0) {
    return path + " is owned by another user (uid " + std::to_string(info.st_uid) +
           "); only your own or root's plugins are loaded";
  }
  return "";
}

}  // namespace sortie::registry::detail
