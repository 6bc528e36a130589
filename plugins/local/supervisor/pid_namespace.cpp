#include "pid_namespace.hpp"

#include <sched.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "user_namespace.hpp"

namespace sortie::local {

bool enter_pid_namespace() {
  return ::unshare(CLONE_NEWPID) == 0 || plugins_common::unshare_keeping_ids(CLONE_NEWPID);
}

pid_t host_pid() {
  char target[32] = {};
  if (::readlink("/proc/self", target, sizeof(target) - 1) <= 0) return ::getpid();
  return static_cast<pid_t>(std::strtol(target, nullptr, 10));
}

}  // namespace sortie::local
