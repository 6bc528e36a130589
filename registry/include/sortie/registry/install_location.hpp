// File: sortie/registry/install_location.hpp
//
// Where the installation this code belongs to lives, so that plugins.d and the helper programs
// are found from sortie's own files: the executable when the code is linked into a program
// (`sortie`), the shared library when it is inside one (libsortie_launch.so in a user's launcher).
// Never argv[0] or the working directory, so `sortie` started through PATH, a symlink or a
// relative path finds the same installation.
#ifndef SORTIE_REGISTRY_INSTALL_LOCATION_HPP
#define SORTIE_REGISTRY_INSTALL_LOCATION_HPP

#include <filesystem>
#include <string>

namespace sortie::registry {

// The absolute path, symlinks resolved, of the module (executable or shared library) this
// function is linked into; "" if the system cannot tell.
std::string own_module_file();

// The prefix of an installation that holds `file` in its bin, library or helper directory
// (CMAKE_INSTALL_BINDIR, CMAKE_INSTALL_LIBDIR, libexec/sortie), or else in a directory one level
// below it.
std::filesystem::path install_prefix_of(const std::filesystem::path& file);

}  // namespace sortie::registry

#endif  // SORTIE_REGISTRY_INSTALL_LOCATION_HPP
