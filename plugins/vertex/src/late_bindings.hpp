#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sortie::vertex {

// XManager's late bindings: %objectname(workerpoolN)% in a role's args or env stands for the
// host:port of worker pool N's first replica, which Vertex AI tells a replica only at run time,
// in the CLUSTER_SPEC environment variable (cluster.workerpoolN[0]).
bool has_late_binding(std::string_view text);

// The container command that resolves them, as XManager's wrapped entrypoint does: a POSIX
// shell script replaces every %objectname(POOL)% in its arguments (and in the environment
// variables env_names) by CLUSTER_SPEC's address of POOL, then execs entrypoint (its words) with
// the resolved arguments. It fails the replica, naming the pool, where CLUSTER_SPEC lacks it.
std::vector<std::string> late_binding_command(const std::vector<std::string>& entrypoint,
                                              const std::vector<std::string>& env_names);

}  // namespace sortie::vertex
