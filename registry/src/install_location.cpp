// File: registry/src/install_location.cpp
#include <dlfcn.h>
#include <link.h>

#include <filesystem>
#include <sortie/registry/install_location.hpp>
#include <string>
#include <system_error>

namespace sortie::registry {

namespace fs = std::filesystem;

std::string own_module_file() {
  Dl_info info{};
  link_map* module = nullptr;
  if (::dladdr1(reinterpret_cast<const void*>(&own_module_file), &info,
                reinterpret_cast<void**>(&module), RTLD_DL_LINKMAP) == 0 ||
      module == nullptr) {
    return "";
  }
  std::error_code error;
  // The main program's link map entry has an empty name (dladdr's dli_fname is then argv[0]).
  if (module->l_name == nullptr || module->l_name[0] == '\0') {
    const fs::path executable = fs::read_symlink("/proc/self/exe", error);
    return error ? "" : executable.string();
  }
  // The loader's name for the library; resolved like /proc/self/exe so both name the real file.
  const fs::path library = fs::canonical(module->l_name, error);
  return error ? "" : library.string();
}

namespace {

// `dir` without its trailing `tail` components; empty when `dir` does not end with them.
fs::path strip_tail(fs::path dir, const fs::path& tail) {
  for (auto part = tail.end(); part != tail.begin();) {
    --part;
    if (dir.filename() != *part) return {};
    dir = dir.parent_path();
  }
  return dir;
}

}  // namespace

fs::path install_prefix_of(const fs::path& file) {
  // The library directory may be several levels deep (lib/x86_64-linux-gnu under /usr on
  // Debian); the executable's is bin/. Climb as many levels as the directory that holds `file`.
  const fs::path dir = file.parent_path();
  if (fs::path prefix = strip_tail(dir, SORTIE_INSTALL_LIBDIR); !prefix.empty()) return prefix;
  if (fs::path prefix = strip_tail(dir, SORTIE_INSTALL_BINDIR); !prefix.empty()) return prefix;
  // The helper programs (libexec/sortie/sortie-ui runs `sortie ui`).
  if (fs::path prefix = strip_tail(dir, SORTIE_INSTALL_LIBEXECDIR); !prefix.empty()) return prefix;
  return dir.parent_path();
}

}  // namespace sortie::registry
