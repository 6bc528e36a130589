// File: sortie/registry/registry.hpp
//
// The entry-point registry: JSON manifests that say which plugin library provides which named
// component, and data-only entries (named resources, components) that need no library. Listing
// reads manifests only; it never loads a library (rule REG-4 of docs/registry.md).
//
// Search order (REG-2), first (group, name) wins and later ones are reported as shadowed:
//   1. SearchOptions::replace_dirs, else $SORTIE_PLUGIN_DIRS (':'-separated): replace 2-5.
//   2. $SORTIE_PLUGIN_PATH (':'-separated), prepended.
//   3. $XDG_CONFIG_HOME/sortie/plugins.d (default ~/.config), then each $XDG_CONFIG_DIRS entry
//      (default /etc/xdg) + /sortie/plugins.d.
//   4. $XDG_DATA_HOME/sortie/plugins.d (default ~/.local/share), then each $XDG_DATA_DIRS entry
//      (default /usr/local/share:/usr/share) + /sortie/plugins.d.
//   5. <prefix>/share/sortie/plugins.d, the install prefix found relocatably from the executable
//      or shared library holding this code (install_location.hpp).
// A directory contributes its *.json files in byte order of their names. Environment variables
// are ignored when the process runs setuid/setgid (secure_getenv). A directory, manifest or
// library that is world-writable or owned by another user (not root), or lies under such a
// directory or behind such a link, is skipped as a problem (REG-15).
#ifndef SORTIE_REGISTRY_REGISTRY_HPP
#define SORTIE_REGISTRY_REGISTRY_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sortie::registry {

enum class Group {
  kSchedulers,
  kPackagers,
  kImageProviders,
  kNamedResources,
  kComponents,
  kExecutors
};

// "sortie.schedulers", "sortie.packagers", "sortie.image_providers", "sortie.named_resources",
// "sortie.components", "sortie.executors".
const char* to_string(Group group) noexcept;
std::optional<Group> group_from_string(std::string_view text) noexcept;

// The "plugin" member of a manifest.
struct PluginLibrary {
  std::string name;
  std::string version;
  std::string description;
  std::string library_path;  // absolute (resolved against the manifest's directory)
  uint32_t abi_min = 0;      // SORTIE_ABI_VERSION(major, minor)
  uint32_t abi_max = 0;
  std::string manifest_path;  // absolute
  // "isolation": "subprocess": the host always runs the library in a helper process (REG-8).
  bool isolate = false;
  // The code-backed entries of its manifest that parsed: what the library must provide.
  std::vector<std::pair<Group, std::string>> provides;
};

struct Entry {
  Group group = Group::kSchedulers;
  std::string name;
  std::string description;
  std::string manifest_path;                    // absolute
  std::shared_ptr<const PluginLibrary> plugin;  // null for data-only entries
  std::string data_json;  // data-only entries: the "resource", "component" or "executor" member
};

struct Shadowed {
  Entry hidden;                    // the entry that lost
  std::string winner_manifest;     // where the winning entry of the same (group, name) lives
  bool hidden_is_builtin = false;  // the loser came with sortie (the install prefix)
};

// A manifest (or one of its entries) that was skipped, and why.
struct Problem {
  std::string manifest_path;
  std::string
      message;  // names the field and what is wrong, e.g. "provides[2].group: unknown group ..."
};

struct SearchDir {
  std::string path;
  std::string source;  // "--plugin-dir", "SORTIE_PLUGIN_DIRS", "SORTIE_PLUGIN_PATH",
                       // "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS",
                       // "install prefix"
};

struct SearchOptions {
  std::vector<std::string> replace_dirs;  // like $SORTIE_PLUGIN_DIRS, but wins over it
  std::string executable_path;            // empty = own_module_file() (install_location.hpp)
};

// The directories of the search order above, in order (existing or not).
std::vector<SearchDir> search_dirs(const SearchOptions& options);

class Registry {
 public:
  // Reads every manifest of search_dirs(options). Malformed manifests become problems(); the
  // rest of the registry stays usable.
  static Registry discover(const SearchOptions& options);
  // Reads exactly these manifest files (tests, `plugins doctor FILE`).
  static Registry from_files(const std::vector<std::string>& manifest_paths);

  const Entry* find(Group group, std::string_view name) const;
  std::vector<const Entry*> entries(Group group) const;  // sorted by name
  const std::vector<Shadowed>& shadowed() const { return shadowed_; }
  const std::vector<Problem>& problems() const { return problems_; }
  const std::vector<SearchDir>& dirs() const { return dirs_; }
  // Names in `group` close to `name`, closest first (sortie/registry/suggest.hpp).
  std::vector<std::string> close_names(Group group, std::string_view name) const;

 private:
  void add_manifest(const std::string& path, bool builtin = false);
  std::vector<Entry> entries_;
  std::vector<Shadowed> shadowed_;
  std::vector<Problem> problems_;
  std::vector<SearchDir> dirs_;
};

}  // namespace sortie::registry

#endif  // SORTIE_REGISTRY_REGISTRY_HPP
