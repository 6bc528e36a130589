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

fs::path install_prefix_of(const fs::path& file) {
  return (file.parent_path() / "..").lexically_normal();
}

}  // namespace sortie::registry
