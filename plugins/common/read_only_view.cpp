#include "read_only_view.hpp"

#include <sched.h>
#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <utility>

#include "user_namespace.hpp"

namespace sortie::plugins_common {
namespace {

std::string failed(const std::string& step) { return step + ": " + std::strerror(errno); }

std::string enter_mount_namespace() {
  // Root on a host: a plain mount namespace, made a slave of the host's so that its binds never
  // propagate back. Else (no privileges, or "/" no mount point to make a slave of) the user
  // namespace's way; a chroot allows neither, and the caller is told why.
  if (::unshare(CLONE_NEWNS) == 0) {
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_SLAVE, nullptr) == 0) return "";
    // Still in the namespace just made: the new one below replaces it.
  }
  // Its mounts are slaves of ours by construction (mount_namespaces(7)).
  if (unshare_keeping_ids(CLONE_NEWNS)) return "";
  return failed("a user and mount namespace could not be made (unshare)");
}

}  // namespace

std::string enter_read_only_view(const std::vector<std::string>& dirs) {
  if (dirs.empty()) return "";
  if (std::string why = enter_mount_namespace(); !why.empty()) return why;
  for (const std::string& dir : dirs) {
    if (::mount(dir.c_str(), dir.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      return failed("cannot bind-mount " + dir);
    }
    // A bind's flags change only by remounting it; the flags its source had stay, as a remount
    // inside a user namespace must keep them.
    struct statvfs source {};
    if (::statvfs(dir.c_str(), &source) != 0)
      return failed("cannot read the mount flags of " + dir);
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
    const std::pair<unsigned long, unsigned long> kept[] = {
        {ST_NOSUID, MS_NOSUID},   {ST_NODEV, MS_NODEV},           {ST_NOEXEC, MS_NOEXEC},
        {ST_NOATIME, MS_NOATIME}, {ST_NODIRATIME, MS_NODIRATIME}, {ST_RELATIME, MS_RELATIME}};
    for (const auto& [has, keep] : kept) {
      if ((source.f_flag & has) != 0) flags |= keep;
    }
    if (::mount(nullptr, dir.c_str(), nullptr, flags, nullptr) != 0) {
      return failed("cannot make " + dir + " read-only");
    }
  }
  // A working directory entered before the mounts still refers to the writable mount beneath
  // them (srun --chdir): entered again by name, it is the read-only one.
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) != nullptr && ::chdir(cwd) != 0) {
    return failed(std::string("cannot enter ") + cwd + " again");
  }
  return "";
}

}  // namespace sortie::plugins_common
