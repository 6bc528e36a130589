// File: registry/src/file_ownership.hpp (private)
//
// sshd's StrictModes for plugin code (REG-15 of docs/registry.md): a manifest, a library or a
// directory holding either that another user could replace is not read.
#ifndef SORTIE_REGISTRY_SRC_FILE_OWNERSHIP_HPP
#define SORTIE_REGISTRY_SRC_FILE_OWNERSHIP_HPP

#include <string>

namespace sortie::registry::detail {

// Why `path` cannot be trusted: it is writable by every user, or owned by a user other than
// this process's or root; empty when it can (or does not exist: other checks report that).
std::string unsafe_ownership(const std::string& path);

}  // namespace sortie::registry::detail

#endif  // SORTIE_REGISTRY_SRC_FILE_OWNERSHIP_HPP
