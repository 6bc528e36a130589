// The starter's run-time choice of an app's containment (containment.hpp).
#ifndef SORTIE_LOCAL_CONTAINMENT_CHOICE_HPP
#define SORTIE_LOCAL_CONTAINMENT_CHOICE_HPP

#include <string>

namespace sortie::local {

struct Containment {
  std::string kind;        // kPidNamespace, kCgroup or kProcessMarker
  std::string cgroup_dir;  // the app's cgroup with kCgroup, else ""
};

// Called by the starter before it forks the supervisor. In order of preference: a PID namespace
// whose init is the next child (the kernel alone kills the app with it, even when the
// supervisor is SIGKILLed); else a cgroup of the app's own (killed with cgroup.kill, by the next
// sortie command if the supervisor is SIGKILLed); else the environment marker.
// SORTIE_LOCAL_CONTAINMENT=<kind> asks for one kind: throws FAILED_PRECONDITION naming the cause
// when it is unavailable, INVALID_ARGUMENT for another value.
Containment choose_containment(const std::string& app_id);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_CONTAINMENT_CHOICE_HPP
