#include "label.hpp"

#include <sortie/plugin.hpp>

namespace sortie::bazel {
namespace {

[[noreturn]] void refuse(std::string_view label, const std::string& why) {
  throw Error::invalid_argument("label '" + std::string(label) + "' " + why);
}

bool names_several_targets(std::string_view package, std::string_view target) {
  const bool recursive = package == "..." || package.ends_with("/...");
  return recursive || target == "all" || target == "*" || target == "all-targets";
}

}  // namespace

std::string canonical_label(std::string_view label) {
  if (label.find_first_of(" \t\r\n") != std::string_view::npos) {
    refuse(label, "contains white space");
  }
  std::string_view repository;
  std::string_view rest = label;
  if (rest.starts_with("@")) {
    const size_t slashes = rest.find("//");
    if (slashes == std::string_view::npos) {
      refuse(label, "names a repository but no package; write @repo//pkg:target");
    }
    repository = rest.substr(0, slashes);
    rest = rest.substr(slashes);
    if (repository == "@") repository = "";  // "@//pkg" is the main repository
  }
  if (!rest.starts_with("//")) {
    refuse(label,
           "is relative; name the target from the workspace root, as //pkg:target (the "
           "packager builds in the workspace holding launch_dir, not in a package)");
  }
  rest.remove_prefix(2);
  const size_t colon = rest.find(':');
  std::string_view package = rest.substr(0, colon);
  std::string_view target;
  if (colon != std::string_view::npos) {
    target = rest.substr(colon + 1);
  } else {
    const size_t last_slash = package.rfind('/');
    target = last_slash == std::string_view::npos ? package : package.substr(last_slash + 1);
  }
  if (names_several_targets(package, target)) {
    refuse(label, "is a pattern naming several targets; name exactly one target, as //pkg:target");
  }
  if (target.empty() || package.ends_with("/") || package.starts_with("/")) {
    refuse(label, "names no target; write //pkg:target");
  }
  return std::string(repository) + "//" + std::string(package) + ":" + std::string(target);
}

}  // namespace sortie::bazel
