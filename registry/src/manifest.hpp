// File: registry/src/manifest.hpp
//
// Reading one manifest file (docs/registry.md REG-6 to REG-13). Private to the registry.
#ifndef SORTIE_REGISTRY_SRC_MANIFEST_HPP
#define SORTIE_REGISTRY_SRC_MANIFEST_HPP

#include <sortie/registry/registry.hpp>
#include <string>
#include <vector>

namespace sortie::registry::detail {

// What one manifest contributes: its valid entries in file order, and a problem for the whole
// file (then `entries` is empty) or for each entry that was skipped.
struct ManifestContents {
  std::vector<Entry> entries;
  std::vector<Problem> problems;
};

// `path` may be relative; every path stored in the result is absolute and normalized.
ManifestContents read_manifest(const std::string& path);

}  // namespace sortie::registry::detail

#endif  // SORTIE_REGISTRY_SRC_MANIFEST_HPP
