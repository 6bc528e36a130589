#include "pid_namespace.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace sortie::local {
namespace {

bool write_proc_file(const char* path, const std::string& text) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return written;
}

bool enter_user_and_pid_namespaces() {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) return false;
  // Only our own ids are mapped, so the app keeps exactly the rights it had.
  return write_proc_file("/proc/self/setgroups", "deny") &&
         write_proc_file("/proc/self/uid_map",
                         std::to_string(uid) + " " + std::to_string(uid) + " 1") &&
         write_proc_file("/proc/self/gid_map",
                         std::to_string(gid) + " " + std::to_string(gid) + " 1");
}

}  // namespace

bool enter_pid_namespace() {
  return ::unshare(CLONE_NEWPID) == 0 || enter_user_and_pid_namespaces();
}

pid_t host_pid() {
  char target[32] = {};
  if (::readlink("/proc/self", target, sizeof(target) - 1) <= 0) return ::getpid();
  return static_cast<pid_t>(std::strtol(target, nullptr, 10));
}

}  // namespace sortie::local
