// File: registry/src/search_dirs.cpp
//
// The manifest search order of registry.hpp (docs/registry.md REG-2, REG-3).
#include <cstdlib>
#include <filesystem>
#include <sortie/registry/install_location.hpp>
#include <sortie/registry/registry.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::registry {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSuffix = "sortie/plugins.d";

// secure_getenv answers NULL in a setuid/setgid process, so no variable steers it there (REG-3).
std::string env(const char* name) {
  const char* value = secure_getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::vector<std::string> split_path_list(std::string_view list) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t end = list.find(':', pos);
    if (end == std::string_view::npos) end = list.size();
    if (end > pos) parts.emplace_back(list.substr(pos, end - pos));
    pos = end + 1;
  }
  return parts;
}

// Absolute, so that library paths of its manifests stay valid whatever directory the host or a
// plugin's child process works in later.
// A directory reached twice (an install prefix of /usr is also in the default XDG_DATA_DIRS) is
// searched once, at its first place, so its manifests do not shadow themselves.
void add(std::vector<SearchDir>& dirs, const fs::path& path, const char* source) {
  std::string normal = fs::absolute(path).lexically_normal().string();
  for (const SearchDir& dir : dirs) {
    if (dir.path == normal) return;
  }
  dirs.push_back(SearchDir{std::move(normal), source});
}

// The XDG base-directory rules: a *_HOME variable that is unset, empty or relative falls back to
// $HOME/<home_default>; relative entries of a *_DIRS list are ignored.
void add_xdg(std::vector<SearchDir>& dirs, const char* home_var, const char* home_default,
             const char* dirs_var, const char* dirs_default) {
  const fs::path home_value = env(home_var);
  if (home_value.is_absolute()) {
    add(dirs, home_value / kSuffix, home_var);
  } else if (const fs::path home = env("HOME"); home.is_absolute()) {
    add(dirs, home / home_default / kSuffix, home_var);
  }
  std::string list = env(dirs_var);
  if (list.empty()) list = dirs_default;
  for (const std::string& dir : split_path_list(list)) {
    if (fs::path(dir).is_absolute()) add(dirs, fs::path(dir) / kSuffix, dirs_var);
  }
}

fs::path executable_path(const SearchOptions& options) {
  if (!options.executable_path.empty()) return fs::absolute(options.executable_path);
  return own_module_file();
}

}  // namespace

std::vector<SearchDir> search_dirs(const SearchOptions& options) {
  std::vector<SearchDir> dirs;
  if (!options.replace_dirs.empty()) {
    for (const std::string& dir : options.replace_dirs) add(dirs, dir, "--plugin-dir");
    return dirs;
  }
  if (const std::string replace = env("SORTIE_PLUGIN_DIRS"); !replace.empty()) {
    for (const std::string& dir : split_path_list(replace)) add(dirs, dir, "SORTIE_PLUGIN_DIRS");
    return dirs;
  }
  for (const std::string& dir : split_path_list(env("SORTIE_PLUGIN_PATH"))) {
    add(dirs, dir, "SORTIE_PLUGIN_PATH");
  }
  add_xdg(dirs, "XDG_CONFIG_HOME", ".config", "XDG_CONFIG_DIRS", "/etc/xdg");
  add_xdg(dirs, "XDG_DATA_HOME", ".local/share", "XDG_DATA_DIRS", "/usr/local/share:/usr/share");
  if (const fs::path self = executable_path(options); !self.empty()) {
    add(dirs, install_prefix_of(self) / "share" / kSuffix, "install prefix");
  }
  return dirs;
}

}  // namespace sortie::registry
