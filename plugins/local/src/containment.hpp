// How the processes of an app are kept from outliving it (docs/local-scheduler.md, "No
// escapees"). Chosen by the supervisor's starter at run time, recorded in state.json and shown
// by `sortie status`.
//
// - pid_namespace: the supervisor is the init of a PID namespace of its own (a user namespace
//   too where the starter is unprivileged). When it dies, even by SIGKILL, the kernel kills every
//   process of the namespace, setsid and double fork included.
// - cgroup: where namespaces are refused but a cgroup v2 child of the starter's cgroup can be
//   made (a delegated systemd user session, root), the replicas run in it (app_cgroup.hpp). The
//   supervisor kills it with cgroup.kill when the app ends; the next sortie command that finds
//   the supervisor dead does it for it.
// - process_marker: where neither is allowed, every replica carries the environment variable
//   SORTIE_CONTAINMENT_MARKER=<app dir> (unique, unlike app ids across state dirs); the supervisor
//   kills the marked processes when the app ends, and the next sortie command that finds the
//   supervisor dead does it for it. A process that clears its environment escapes this sweep.
#ifndef SORTIE_LOCAL_CONTAINMENT_HPP
#define SORTIE_LOCAL_CONTAINMENT_HPP

#include <string>
#include <string_view>

namespace sortie::local {

inline constexpr std::string_view kPidNamespace = "pid_namespace";
inline constexpr std::string_view kCgroup = "cgroup";
inline constexpr std::string_view kProcessMarker = "process_marker";
inline constexpr const char* kMarkerVariable = "SORTIE_CONTAINMENT_MARKER";

// What `sortie status` says about an app contained by `containment`.
std::string containment_guarantee(std::string_view containment);

// Whether the environment of the process /proc/<pid> shows holds `entry` ("NAME=value", whole).
bool environment_holds(pid_t pid, const std::string& entry);

// SIGKILLs every process (but this one) whose environment holds kMarkerVariable=<app_dir>, until
// none is left. Returns how many it killed.
int kill_marked_processes(const std::string& app_dir);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_CONTAINMENT_HPP
