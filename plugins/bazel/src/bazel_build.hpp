// The three Bazel calls a packaging makes: `bazel info` (where the workspace and its outputs
// are), `bazel build` (every label at once) and `bazel cquery --output=starlark` (what each
// target made; Bazel 4 has no `cquery --output=files`).
#ifndef SORTIE_BAZEL_BAZEL_BUILD_HPP
#define SORTIE_BAZEL_BAZEL_BUILD_HPP

#include <map>
#include <string>
#include <vector>

#include "bazel_command.hpp"

namespace sortie::bazel {

struct Workspace {
  std::string root;            // `bazel info workspace`
  std::string execution_root;  // `bazel info execution_root`: output paths are relative to it
};

// The workspace holding `launch_dir`. Throws FAILED_PRECONDITION when there is none.
Workspace locate_workspace(const BazelCommand& bazel, const std::string& launch_dir);

// Builds `labels` with `bazel_args` in one `bazel build`. On failure throws FAILED_PRECONDITION
// with `what` (the executables concerned) and the last lines Bazel printed.
void build_targets(const BazelCommand& bazel, const Workspace& workspace,
                   const std::vector<std::string>& labels,
                   const std::vector<std::string>& bazel_args, const std::string& what);

struct TargetOutputs {
  std::string executable;          // absolute; "" when the target has none
  std::vector<std::string> files;  // absolute: the target's default outputs
};

// What each of `labels` (canonical, as label.hpp makes them) made in the configuration that
// `bazel_args` select, in one `bazel cquery`. Every label is a key of the result.
std::map<std::string, TargetOutputs> query_outputs(const BazelCommand& bazel,
                                                   const Workspace& workspace,
                                                   const std::vector<std::string>& labels,
                                                   const std::vector<std::string>& bazel_args);

}  // namespace sortie::bazel

#endif  // SORTIE_BAZEL_BAZEL_BUILD_HPP
