// The bazel_binary and bazel_container packagers (docs/bazel-packagers.md): every label of a
// request is built in one `bazel build` per distinct bazel_args, in the workspace holding
// launch_dir; `bazel cquery` then says which files each target made.
#ifndef SORTIE_BAZEL_BAZEL_PACKAGER_HPP
#define SORTIE_BAZEL_BAZEL_PACKAGER_HPP

#include <sortie/plugin.hpp>
#include <string>
#include <string_view>

#include "package_request.hpp"

namespace sortie::bazel {

// Both packagers take both kinds; the registered name only shows in messages.
class BazelPackager : public Packager {
 public:
  BazelPackager(std::string_view config, std::string_view name);
  std::string package(std::string_view request) override;

 private:
  PackagerConfig config_;
};

class BazelBinaryPackager final : public BazelPackager {
 public:
  explicit BazelBinaryPackager(std::string_view config) : BazelPackager(config, kBinaryKind) {}
};

class BazelContainerPackager final : public BazelPackager {
 public:
  explicit BazelContainerPackager(std::string_view config)
      : BazelPackager(config, kContainerKind) {}
};

}  // namespace sortie::bazel

#endif  // SORTIE_BAZEL_BAZEL_PACKAGER_HPP
