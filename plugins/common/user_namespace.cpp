#include "user_namespace.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <string>

namespace sortie::plugins_common {
namespace {

bool write_proc_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return written;
}

}  // namespace

bool unshare_keeping_ids(int other_namespaces) {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(CLONE_NEWUSER | other_namespaces) != 0) return false;
  // Root may map every id, so files keep their owners as the processes inside see them.
  if (uid == 0) {
    return write_proc_file("/proc/self/uid_map", "0 0 4294967295") &&
           write_proc_file("/proc/self/gid_map", "0 0 4294967295");
  }
  return write_proc_file("/proc/self/setgroups", "deny") &&
         write_proc_file("/proc/self/uid_map",
                         std::to_string(uid) + " " + std::to_string(uid) + " 1") &&
         write_proc_file("/proc/self/gid_map",
                         std::to_string(gid) + " " + std::to_string(gid) + " 1");
}

}  // namespace sortie::plugins_common
