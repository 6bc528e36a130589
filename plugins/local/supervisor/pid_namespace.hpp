// Puts the supervisor at the root of a PID namespace of its own (see containment.hpp).
#ifndef SORTIE_LOCAL_PID_NAMESPACE_HPP
#define SORTIE_LOCAL_PID_NAMESPACE_HPP

#include <sys/types.h>

namespace sortie::local {

// Makes the next child of this process the init of a new PID namespace (inside a new user
// namespace mapping only our own ids when unprivileged). False, errno set, when the kernel
// refuses both.
bool enter_pid_namespace();

// This process's pid as the rest of the host sees it (/proc is the host's mount), which differs
// from getpid() inside the namespace.
pid_t host_pid();

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_PID_NAMESPACE_HPP
