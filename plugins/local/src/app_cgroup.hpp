// cgroup v2 containment (containment.hpp, kCgroup): each app's replicas run in a cgroup of their
// own, `<the supervisor's cgroup>/sortie-<app id>`, which `cgroup.kill` empties at once, forks in
// flight, setsid and double fork included (Linux >= 5.14).
#ifndef SORTIE_LOCAL_APP_CGROUP_HPP
#define SORTIE_LOCAL_APP_CGROUP_HPP

#include <string>

namespace sortie::local {

// The directory of this process's cgroup in the cgroup v2 hierarchy (the cgroup2 mount from
// /proc/self/mountinfo plus the `0::` line of /proc/self/cgroup), or "" with *why set when there
// is no cgroup2 hierarchy.
std::string own_cgroup_dir(std::string* why);

// Creates `<own cgroup>/sortie-<app_id>` (another name when that one exists) and checks that
// this process may move into it and back, which is what a replica does before it execs. Returns
// its directory, or "" with *why set (no cgroup2, not writable, a kernel without cgroup.kill);
// nothing is left behind then.
std::string create_app_cgroup(const std::string& app_id, std::string* why);

// Kills every process of the cgroup `dir` (cgroup.kill), waits until it is empty (zombies do not
// count) and removes it. A missing `dir` is already done. Returns "" or why it is still there.
std::string kill_and_remove_cgroup(const std::string& dir);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_APP_CGROUP_HPP
