// The packager payloads of docs/payloads.md P-13 as the bazel packagers read them:
// sortie.packager_config/1 and sortie.package_request/1 with bazel_binary and bazel_container
// executables.
#ifndef SORTIE_BAZEL_PACKAGE_REQUEST_HPP
#define SORTIE_BAZEL_PACKAGE_REQUEST_HPP

#include <string>
#include <string_view>
#include <vector>

namespace sortie::bazel {

inline constexpr std::string_view kBinaryKind = "bazel_binary";
inline constexpr std::string_view kContainerKind = "bazel_container";

struct PackagerConfig {
  std::string name;       // the packager's registered name, for messages
  std::string state_dir;  // durable state of this packager; "" when the host gave none
};

// Throws INVALID_ARGUMENT naming the member at fault.
PackagerConfig read_packager_config(std::string_view config, std::string_view packager);

struct BazelExecutable {
  std::string kind;   // kBinaryKind or kContainerKind
  std::string label;  // canonical (label.hpp)
  std::vector<std::string> bazel_args;
  std::string described;  // "executable 'server' (bazel_binary, //srv:server)", for messages
};

struct PackageRequest {
  std::string launch_dir;
  std::vector<BazelExecutable> executables;
};

// Reads a request whose executables are all bazel_binary or bazel_container (either packager
// takes both, so one request can build both in one Bazel run). Throws INVALID_ARGUMENT naming
// the executable and member at fault: another kind, an unknown member, a label that is relative
// or names several targets, bazel_args that are not a list of strings.
PackageRequest read_package_request(std::string_view text, std::string_view packager);

}  // namespace sortie::bazel

#endif  // SORTIE_BAZEL_PACKAGE_REQUEST_HPP
