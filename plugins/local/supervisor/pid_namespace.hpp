// Puts the supervisor at the root of a PID namespace of its own (see containment.hpp).
#ifndef SORTIE_LOCAL_PID_NAMESPACE_HPP
#define SORTIE_LOCAL_PID_NAMESPACE_HPP

#include <sys/types.h>

#include <string>

namespace sortie::local {

// Called by the starter before it forks the supervisor: makes the next child the init of a new
// PID namespace (inside a new user namespace mapping only our own ids when unprivileged).
// Returns kPidNamespace, or kProcessMarker when the kernel refuses both or
// SORTIE_LOCAL_CONTAINMENT=process_marker asks for it. Throws when SORTIE_LOCAL_CONTAINMENT is
// another value, or is pid_namespace and the kernel refuses.
std::string choose_containment();

// This process's pid as the rest of the host sees it (/proc is the host's mount), which differs
// from getpid() inside the namespace.
pid_t host_pid();

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_PID_NAMESPACE_HPP
