#include "late_bindings.hpp"

namespace sortie::vertex {
namespace {

constexpr std::string_view kLateBinding = "%objectname(";

// resolve VALUE prints VALUE with each %objectname(POOL)% replaced by the first address of
// "POOL": [...] in $CLUSTER_SPEC (the pool's own entry: a task's "type" is followed by a comma).
constexpr const char* kResolver = R"sh(resolve() {
  rest=$1 out=
  while :; do
    case $rest in *'%objectname('*')%'*) ;; *) break ;; esac
    out=$out${rest%%'%objectname('*}
    rest=${rest#*'%objectname('}
    pool=${rest%%')%'*}
    rest=${rest#*')%'}
    address=$(printf '%s' "$CLUSTER_SPEC" |
      sed -n 's/.*"'"$pool"'": *\[ *"\([^"]*\)".*/\1/p')
    if [ -z "$address" ]; then
      echo "sortie: CLUSTER_SPEC names no worker pool '$pool' (late binding %objectname($pool)%)" >&2
      return 1
    fi
    out=$out$address
  done
  printf '%s' "$out$rest"
}
)sh";

}  // namespace

bool has_late_binding(std::string_view text) {
  return text.find(kLateBinding) != std::string_view::npos;
}

std::vector<std::string> late_binding_command(const std::vector<std::string>& entrypoint,
                                              const std::vector<std::string>& env_names) {
  std::string script = kResolver;
  // Names are environment variable names ([A-Za-z_][A-Za-z0-9_]*, checked by the SDK reader),
  // so they need no quoting.
  for (const std::string& name : env_names) {
    script += name + "=$(resolve \"$" + name + "\") || exit 1\nexport " + name + "\n";
  }
  script +=
      "count=$#\n"
      "for arg do\n"
      "  resolved=$(resolve \"$arg\") || exit 1\n"
      "  set -- \"$@\" \"$resolved\"\n"
      "done\n"
      "shift \"$count\"\n"
      "exec \"$@\"\n";
  std::vector<std::string> command = {"/bin/sh", "-c", script, "sortie-late-bindings"};
  command.insert(command.end(), entrypoint.begin(), entrypoint.end());
  return command;
}

}  // namespace sortie::vertex
