// File: registry/src/registry.cpp
//
// Discovery across the search directories, first-wins resolution and lookups. Only manifests are
// read here; no library is ever opened (REG-4).
#include <algorithm>
#include <filesystem>
#include <sortie/registry/registry.hpp>
#include <sortie/registry/suggest.hpp>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "file_ownership.hpp"
#include "manifest.hpp"

namespace sortie::registry {
namespace {

namespace fs = std::filesystem;

struct GroupName {
  Group group;
  const char* name;
};

constexpr GroupName kGroupNames[] = {
    {Group::kSchedulers, "sortie.schedulers"},
    {Group::kPackagers, "sortie.packagers"},
    {Group::kImageProviders, "sortie.image_providers"},
    {Group::kNamedResources, "sortie.named_resources"},
    {Group::kComponents, "sortie.components"},
    {Group::kExecutors, "sortie.executors"},
};

// The *.json files of a directory in byte order of their names (REG-2), or an error.
std::vector<std::string> manifest_files(const fs::path& dir, std::error_code& error) {
  std::vector<std::string> files;
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    std::error_code status_error;
    if (it->path().extension() == ".json" && it->is_regular_file(status_error)) {
      files.push_back(it->path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

const char* to_string(Group group) noexcept {
  for (const GroupName& entry : kGroupNames) {
    if (entry.group == group) return entry.name;
  }
  return "sortie.unknown_group";
}

std::optional<Group> group_from_string(std::string_view text) noexcept {
  for (const GroupName& entry : kGroupNames) {
    if (text == entry.name) return entry.group;
  }
  return std::nullopt;
}

Registry Registry::discover(const SearchOptions& options) {
  Registry registry;
  registry.dirs_ = search_dirs(options);
  for (const SearchDir& dir : registry.dirs_) {
    std::error_code error;
    if (!fs::is_directory(dir.path, error)) {
      // The default directories are usually absent; only a directory someone named is a problem.
      const bool named = dir.source == "--plugin-dir" || dir.source == "SORTIE_PLUGIN_DIRS" ||
                         dir.source == "SORTIE_PLUGIN_PATH";
      if (named) {
        registry.problems_.push_back(Problem{dir.path, "is not a directory (named by " +
                                                           dir.source + "); create it or " +
                                                           "remove it from " + dir.source});
      }
      continue;
    }
    if (std::string unsafe = detail::unsafe_ownership(dir.path); !unsafe.empty()) {
      registry.problems_.push_back(Problem{dir.path, "not read: " + unsafe});
      continue;
    }
    const std::vector<std::string> files = manifest_files(dir.path, error);
    if (error) {
      registry.problems_.push_back(Problem{
          dir.path, "cannot list the directory (from " + dir.source + "): " + error.message()});
      continue;
    }
    for (const std::string& file : files) {
      registry.add_manifest(file, dir.source == "install prefix");
    }
  }
  return registry;
}

Registry Registry::from_files(const std::vector<std::string>& manifest_paths) {
  Registry registry;
  for (const std::string& path : manifest_paths) registry.add_manifest(path);
  return registry;
}

namespace {

// Why the manifest or a library it names breaks REG-15; empty when none does.
std::string unsafe_plugin_files(const std::string& manifest_path,
                                const detail::ManifestContents& contents) {
  std::vector<std::string> paths = {manifest_path};
  for (const Entry& entry : contents.entries) {
    if (!entry.plugin) continue;
    paths.push_back(entry.plugin->library_path);  // its directories are checked on the way
  }
  for (const std::string& path : paths) {
    if (std::string unsafe = detail::unsafe_ownership(path); !unsafe.empty()) return unsafe;
  }
  return "";
}

}  // namespace

void Registry::add_manifest(const std::string& path, bool builtin) {
  detail::ManifestContents contents = detail::read_manifest(path);
  for (Problem& problem : contents.problems) problems_.push_back(std::move(problem));
  if (std::string unsafe = unsafe_plugin_files(path, contents); !unsafe.empty()) {
    problems_.push_back(Problem{path, "not read: " + unsafe});
    return;
  }
  for (Entry& entry : contents.entries) {
    if (const Entry* winner = find(entry.group, entry.name)) {
      shadowed_.push_back(Shadowed{std::move(entry), winner->manifest_path, builtin});
    } else {
      entries_.push_back(std::move(entry));
    }
  }
}

const Entry* Registry::find(Group group, std::string_view name) const {
  for (const Entry& entry : entries_) {
    if (entry.group == group && entry.name == name) return &entry;
  }
  return nullptr;
}

std::vector<const Entry*> Registry::entries(Group group) const {
  std::vector<const Entry*> result;
  for (const Entry& entry : entries_) {
    if (entry.group == group) result.push_back(&entry);
  }
  std::sort(result.begin(), result.end(),
            [](const Entry* a, const Entry* b) { return a->name < b->name; });
  return result;
}

std::vector<std::string> Registry::close_names(Group group, std::string_view name) const {
  std::vector<std::string> names;
  for (const Entry* entry : entries(group)) names.push_back(entry->name);
  return registry::close_names(name, names);
}

}  // namespace sortie::registry
