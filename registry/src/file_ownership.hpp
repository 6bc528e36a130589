// File: registry/src/file_ownership.hpp (private)
//
// sshd's StrictModes for plugin code (REG-15 of docs/registry.md): a manifest, a library or a
// directory holding either that another user could replace, here or anywhere up the path to it,
// symbolic links followed, is not read.
#ifndef SORTIE_REGISTRY_SRC_FILE_OWNERSHIP_HPP
#define SORTIE_REGISTRY_SRC_FILE_OWNERSHIP_HPP

#include <string>

namespace sortie::registry::detail {

// Why `path` cannot be trusted: it, a directory on the way to it or a directory a symbolic link
// on the way leads through is writable by every user (a directory with the sticky bit, as /tmp,
// excepted), or one of them or a link is owned by a user other than this process's or root.
// Empty when it can be trusted (or does not exist: other checks report that).
std::string unsafe_ownership(const std::string& path);

}  // namespace sortie::registry::detail

#endif  // SORTIE_REGISTRY_SRC_FILE_OWNERSHIP_HPP
