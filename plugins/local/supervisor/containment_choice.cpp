#include "containment_choice.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sortie/plugin.hpp>

#include "app_cgroup.hpp"
#include "containment.hpp"
#include "pid_namespace.hpp"

namespace sortie::local {

Containment choose_containment(const std::string& app_id) {
  const char* variable = std::getenv("SORTIE_LOCAL_CONTAINMENT");
  const std::string asked = variable == nullptr ? "" : variable;
  if (!asked.empty() && asked != kPidNamespace && asked != kCgroup && asked != kProcessMarker) {
    throw Error::invalid_argument("SORTIE_LOCAL_CONTAINMENT='" + asked + "': must be " +
                                  std::string(kPidNamespace) + ", " + std::string(kCgroup) +
                                  " or " + std::string(kProcessMarker));
  }
  if (asked == kProcessMarker) return {asked, ""};
  if (asked.empty() || asked == kPidNamespace) {
    if (enter_pid_namespace()) return {std::string(kPidNamespace), ""};
    if (asked == kPidNamespace) {
      throw Error::failed_precondition(
          "SORTIE_LOCAL_CONTAINMENT=pid_namespace, but this kernel refuses a new PID namespace "
          "(and a user namespace to hold it): " +
          std::string(std::strerror(errno)));
    }
  }
  std::string why;
  if (std::string dir = create_app_cgroup(app_id, &why); !dir.empty()) {
    return {std::string(kCgroup), std::move(dir)};
  }
  if (asked == kCgroup) {
    throw Error::failed_precondition(
        "SORTIE_LOCAL_CONTAINMENT=cgroup, but no cgroup of the app "
        "can be made: " +
        why);
  }
  return {std::string(kProcessMarker), ""};
}

}  // namespace sortie::local
