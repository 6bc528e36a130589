// File: core/plugin_host/plugin_loader.cpp
//
// Opening and negotiating plugin libraries. Every check of docs/plugin-policy.md that the host
// can enforce before a component is used lives here.
#include "plugin_loader.hpp"

#include <sortie/version.h>

#include <boost/dll/shared_library.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sortie/model/error.hpp>
#include <string>
#include <utility>
#include <vector>

#include "plugin_calls.hpp"

namespace sortie::plugin_host::detail {
namespace {

using NegotiateFn = sortie_status(const sortie_host_info*, sortie_plugin_info*, const sortie_sink*);

// One library's slot in the table. Never freed: `api` must stay valid for the life of the process
// and the library is never unloaded (its code may still be referenced by handles).
struct LibraryRecord {
  std::string plugin_name;  // the manifest's, for diagnostics sent through `api`
  sortie_host_api api{};
  std::optional<boost::dll::shared_library> library;
  std::optional<LoadedPlugin> plugin;
  std::optional<Error> error;
};

struct LibraryTable {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<LibraryRecord>> records;  // by library path
};

LibraryTable& library_table() {
  static LibraryTable* table = new LibraryTable;  // leaked on purpose: see LibraryRecord
  return *table;
}

struct DiagnosticLog {
  std::mutex mutex;  // separate from the table's: plugins log while the table is locked
  std::vector<std::string> lines;
  DiagnosticForwarder forward = nullptr;
};

DiagnosticLog& diagnostic_log() {
  static DiagnosticLog* log = new DiagnosticLog;  // plugins may log from any thread until exit
  return *log;
}

void log_from_plugin(void* ctx, int32_t level, const char* msg, size_t len) {
  const auto* record = static_cast<const LibraryRecord*>(ctx);
  add_diagnostic(level, record->plugin_name,
                 msg == nullptr ? std::string_view() : std::string_view(msg, len));
}

std::string abi_text(uint32_t version) {
  return std::to_string(SORTIE_ABI_MAJOR(version)) + "." +
         std::to_string(SORTIE_ABI_MINOR(version));
}

std::string abi_range_text(uint32_t min, uint32_t max) {
  return "[" + abi_text(min) + ", " + abi_text(max) + "]";
}

std::optional<uint32_t> kind_of(registry::Group group) {
  switch (group) {
    case registry::Group::kSchedulers:
      return SORTIE_KIND_SCHEDULER;
    case registry::Group::kPackagers:
      return SORTIE_KIND_PACKAGER;
    case registry::Group::kImageProviders:
      return SORTIE_KIND_IMAGE_PROVIDER;
    case registry::Group::kNamedResources:
      return SORTIE_KIND_NAMED_RESOURCES;
    case registry::Group::kComponents:
    case registry::Group::kExecutors:
      return std::nullopt;
  }
  return std::nullopt;
}

// Checks a plugin's answer after the fact, as the OpenXR loader does; `fault` throws.
class AnswerChecker {
 public:
  explicit AnswerChecker(std::string context) : context_(std::move(context)) {}

  [[noreturn]] void fault(const std::string& what) const {
    throw Error::internal(context_ + ": invalid negotiation answer: " + what +
                          "; the plugin breaks the sortie ABI (sdk/include/sortie/"
                          "plugin_abi.h), report it to its authors");
  }

  // The vtable must reach `needed_size` bytes and the required members must be non-NULL.
  template <class Table>
  void require(const std::string& label, const Table* table, size_t needed_size,
               const char* last_needed,
               std::initializer_list<std::pair<const char*, bool>> required) const {
    if (table->struct_size < needed_size) {
      fault(label + " has a function table of " + std::to_string(table->struct_size) +
            " bytes, smaller than the " + std::to_string(needed_size) +
            " bytes the host needs (up to '" + last_needed + "')");
    }
    for (const auto& [name, present] : required) {
      if (!present) fault(label + " has a NULL '" + name + "', which is required");
    }
  }

  void check_vtable(const std::string& label, const sortie_component& component) const {
    switch (component.kind) {
      case SORTIE_KIND_SCHEDULER: {
        using V = sortie_scheduler_vtable;
        const auto* v = static_cast<const V*>(component.vtable);
        require(label, v, offsetof(V, cancel) + sizeof(v->cancel), "cancel",
                {{"create", v->create != nullptr},
                 {"destroy", v->destroy != nullptr},
                 {"run_options", v->run_options != nullptr},
                 {"dryrun", v->dryrun != nullptr},
                 {"schedule", v->schedule != nullptr},
                 {"describe", v->describe != nullptr},
                 {"cancel", v->cancel != nullptr}});
        const int log_calls = (SORTIE_HAS_MEMBER(v, V, log_open) && v->log_open != nullptr) +
                              (SORTIE_HAS_MEMBER(v, V, log_next) && v->log_next != nullptr) +
                              (SORTIE_HAS_MEMBER(v, V, log_close) && v->log_close != nullptr);
        if (log_calls != 0 && log_calls != 3) {
          fault(label +
                " implements only some of log_open, log_next and log_close; provide all "
                "three or none");
        }
        break;
      }
      case SORTIE_KIND_PACKAGER: {
        using V = sortie_packager_vtable;
        const auto* v = static_cast<const V*>(component.vtable);
        require(label, v, offsetof(V, package) + sizeof(v->package), "package",
                {{"create", v->create != nullptr},
                 {"destroy", v->destroy != nullptr},
                 {"package", v->package != nullptr}});
        break;
      }
      case SORTIE_KIND_IMAGE_PROVIDER: {
        using V = sortie_image_provider_vtable;
        const auto* v = static_cast<const V*>(component.vtable);
        require(label, v, offsetof(V, fetch) + sizeof(v->fetch), "fetch",
                {{"create", v->create != nullptr},
                 {"destroy", v->destroy != nullptr},
                 {"fetch", v->fetch != nullptr}});
        break;
      }
      case SORTIE_KIND_NAMED_RESOURCES: {
        using V = sortie_named_resources_vtable;
        const auto* v = static_cast<const V*>(component.vtable);
        require(label, v, offsetof(V, lookup) + sizeof(v->lookup), "lookup",
                {{"names", v->names != nullptr}, {"lookup", v->lookup != nullptr}});
        break;
      }
    }
  }

  std::vector<const sortie_component*> check_components(const sortie_plugin_info& info) const {
    if (info.component_count > 0 && info.components == nullptr) {
      fault("component_count is " + std::to_string(info.component_count) +
            " but components is NULL");
    }
    std::vector<const sortie_component*> components;
    std::set<std::pair<uint32_t, std::string>> seen;
    for (size_t i = 0; i < info.component_count; ++i) {
      std::string label = "component #" + std::to_string(i);
      if (info.components[i] == nullptr) fault(label + " is a NULL pointer");
      const sortie_component& component = *info.components[i];
      constexpr size_t kNeeded = offsetof(sortie_component, vtable) + sizeof(component.vtable);
      if (component.struct_size < kNeeded) {
        fault(label + " has struct_size " + std::to_string(component.struct_size) +
              ", smaller than the " + std::to_string(kNeeded) + " bytes of sortie_component");
      }
      if (component.name == nullptr || component.name[0] == '\0') {
        fault(label + " has " + (component.name == nullptr ? "a NULL" : "an empty") + " name");
      }
      const char* kind = component_kind_name(component.kind);
      if (kind == nullptr) {
        fault(label + " ('" + component.name + "') has unknown kind " +
              std::to_string(component.kind) + "; this host knows kinds 1 to 4");
      }
      label = std::string(kind) + " '" + component.name + "'";
      if (!seen.emplace(component.kind, component.name).second) {
        fault("two components are the " + label + "; names must be unique per kind");
      }
      if (component.vtable == nullptr) fault(label + " has a NULL vtable");
      check_vtable(label, component);
      components.push_back(&component);
    }
    return components;
  }

 private:
  std::string context_;
};

// Compares the library's components with the manifest's "provides" (PLG-14, PLG-15).
void check_against_manifest(const registry::PluginLibrary& library, const LoadedPlugin& plugin,
                            const std::string& context) {
  std::set<std::pair<uint32_t, std::string>> promised;
  for (const auto& [group, name] : library.provides) {
    if (auto kind = kind_of(group)) promised.emplace(*kind, name);
  }
  std::string provided;
  std::set<std::pair<uint32_t, std::string>> present;
  for (const sortie_component* component : plugin.components) {
    present.emplace(component->kind, component->name);
    provided += std::string(provided.empty() ? "" : ", ") + component_kind_name(component->kind) +
                " '" + component->name + "'";
  }
  for (const auto& [kind, name] : promised) {
    if (!present.count({kind, name})) {
      throw Error::failed_precondition(
          context + ": the manifest promises " + component_kind_name(kind) + " '" + name +
          "' but the library has no such component (it has: " +
          (provided.empty() ? "none" : provided) +
          "); fix 'provides' in the manifest or install the matching library");
    }
  }
  for (const auto& [kind, name] : present) {
    if (!promised.count({kind, name})) {
      add_diagnostic(SORTIE_LOG_WARNING, library.name,
                     std::string("the library has ") + component_kind_name(kind) + " '" + name +
                         "', which manifest " + library.manifest_path +
                         " does not list, so it cannot be used; add it to 'provides'");
    }
  }
}

// dlerror's own words, out of Boost.DLL's "... (dlerror system message: TEXT): ..." wrapping.
std::string dlerror_text(const std::string& what) {
  static constexpr std::string_view kMarker = "dlerror system message: ";
  const size_t start = what.find(kMarker);
  const size_t end = what.rfind(')');
  if (start == std::string::npos || end == std::string::npos || end < start) return what;
  return what.substr(start + kMarker.size(), end - start - kMarker.size());
}

LoadedPlugin negotiate(const registry::PluginLibrary& library, LibraryRecord& record) {
  const std::string context = plugin_context(library);
  if (library.abi_max < kHostAbiMin || library.abi_min > kHostAbiMax) {
    const std::string hint =
        library.abi_max < kHostAbiMin
            ? "rebuild the plugin against sortie SDK >= " + abi_text(kHostAbiMin)
            : "upgrade sortie to a release that speaks ABI " + abi_text(library.abi_min) +
                  ", or install a build of the plugin for ABI " + abi_text(kHostAbiMax);
    throw Error::failed_precondition(context + ": the manifest declares ABI " +
                                     abi_range_text(library.abi_min, library.abi_max) +
                                     " but this host speaks " +
                                     abi_range_text(kHostAbiMin, kHostAbiMax) + "; " + hint);
  }
  std::error_code exists_error;
  if (!std::filesystem::exists(library.library_path, exists_error)) {
    throw Error::failed_precondition(context + ": the library " + library.library_path +
                                     " does not exist; reinstall the plugin or fix 'library' "
                                     "in the manifest");
  }
  try {
    record.library.emplace(library.library_path,
                           boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw Error::failed_precondition(context +
                                     ": cannot load the library: " + dlerror_text(e.what()) +
                                     " (a missing dependency or an undefined symbol; `ldd -r " +
                                     library.library_path + "` shows which)");
  }
  if (!record.library->has(SORTIE_PLUGIN_ENTRY_SYMBOL)) {
    throw Error::failed_precondition(
        context + ": not a sortie plugin: the library exports no '" + SORTIE_PLUGIN_ENTRY_SYMBOL +
        "' (was it built with SORTIE_PLUGIN(...) / sortie_add_plugin?)");
  }
  auto& entry = record.library->get<NegotiateFn>(SORTIE_PLUGIN_ENTRY_SYMBOL);

  record.api.struct_size = sizeof(record.api);
  record.api.ctx = &record;
  record.api.log = &log_from_plugin;
  sortie_host_info host{};
  host.struct_size = sizeof(host);
  host.abi_min = kHostAbiMin;
  host.abi_max = kHostAbiMax;
  host.host_version = SORTIE_VERSION;
  host.api = &record.api;
  sortie_plugin_info info{};
  info.struct_size = sizeof(info);
  StringSink err;
  const sortie_status status =
      invoke(context, SORTIE_PLUGIN_ENTRY_SYMBOL, [&] { return entry(&host, &info, err.get()); });
  if (status != SORTIE_OK) {
    throw Error(is_known_status(status) ? status : SORTIE_UNKNOWN,
                context + ": negotiation failed (" + model::status_name(status) +
                    "): " + (err.text().empty() ? "(the plugin gave no message)" : err.text()) +
                    "; this host speaks ABI " + abi_range_text(kHostAbiMin, kHostAbiMax));
  }

  const AnswerChecker checker(context);
  constexpr size_t kInfoNeeded = offsetof(sortie_plugin_info, components) + sizeof(info.components);
  if (info.struct_size < kInfoNeeded) {
    checker.fault("sortie_plugin_info.struct_size is " + std::to_string(info.struct_size) +
                  ", smaller than the " + std::to_string(kInfoNeeded) + " bytes of ABI 1.0");
  }
  if (info.abi_version < kHostAbiMin || info.abi_version > kHostAbiMax) {
    throw Error::failed_precondition(
        context + ": the plugin chose ABI " + abi_text(info.abi_version) +
        ", outside the host's range " + abi_range_text(kHostAbiMin, kHostAbiMax) +
        "; rebuild the plugin against sortie SDK >= " + abi_text(kHostAbiMin) +
        " and <= " + abi_text(kHostAbiMax));
  }
  if (info.name == nullptr || info.name[0] == '\0') {
    checker.fault(std::string("sortie_plugin_info.name is ") +
                  (info.name == nullptr ? "NULL" : "empty"));
  }
  if (info.version == nullptr) checker.fault("sortie_plugin_info.version is NULL");

  LoadedPlugin plugin;
  plugin.name = info.name;
  plugin.version = info.version;
  plugin.abi_version = info.abi_version;
  plugin.library_path = library.library_path;
  plugin.manifest_path = library.manifest_path;
  plugin.components = checker.check_components(info);
  check_against_manifest(library, plugin, context);
  return plugin;
}

}  // namespace

std::string plugin_context(const registry::PluginLibrary& library) {
  return "plugin '" + library.name + "' (" + library.library_path + ", manifest " +
         library.manifest_path + ")";
}

const LoadedPlugin& load_plugin(const registry::PluginLibrary& library) {
  LibraryTable& table = library_table();
  const std::lock_guard<std::mutex> lock(table.mutex);
  std::unique_ptr<LibraryRecord>& record = table.records[library.library_path];
  if (record == nullptr) {
    record = std::make_unique<LibraryRecord>();
    record->plugin_name = library.name;
    try {
      record->plugin = negotiate(library, *record);
    } catch (const Error& error) {
      record->error = error;
    }
  }
  if (record->error) throw *record->error;
  return *record->plugin;
}

namespace {
thread_local int32_t t_diagnostic_print_level = SORTIE_LOG_WARNING;
}  // namespace

DiagnosticPrintScope::DiagnosticPrintScope(int32_t level) : previous_(t_diagnostic_print_level) {
  t_diagnostic_print_level = level;
}

DiagnosticPrintScope::~DiagnosticPrintScope() { t_diagnostic_print_level = previous_; }

void add_diagnostic(int32_t level, const std::string& plugin_name, std::string_view message) {
  DiagnosticLog& log = diagnostic_log();
  DiagnosticForwarder forward = nullptr;
  {
    const std::lock_guard<std::mutex> lock(log.mutex);
    forward = log.forward;
  }
  if (forward != nullptr) {
    forward(level, plugin_name, message);
    return;
  }
  std::string line = "plugin " + plugin_name + ": " + std::string(message);
  if (level >= t_diagnostic_print_level) std::fprintf(stderr, "sortie: %s\n", line.c_str());
  const std::lock_guard<std::mutex> lock(log.mutex);
  log.lines.push_back(std::move(line));
}

void forward_diagnostics(DiagnosticForwarder forward) {
  DiagnosticLog& log = diagnostic_log();
  const std::lock_guard<std::mutex> lock(log.mutex);
  log.forward = forward;
}

std::vector<std::string> diagnostics() {
  DiagnosticLog& log = diagnostic_log();
  const std::lock_guard<std::mutex> lock(log.mutex);
  return log.lines;
}

}  // namespace sortie::plugin_host::detail

namespace sortie::plugin_host {

const char* component_kind_name(uint32_t kind) noexcept {
  switch (kind) {
    case SORTIE_KIND_SCHEDULER:
      return "scheduler";
    case SORTIE_KIND_PACKAGER:
      return "packager";
    case SORTIE_KIND_IMAGE_PROVIDER:
      return "image provider";
    case SORTIE_KIND_NAMED_RESOURCES:
      return "named-resource registry";
    default:
      return nullptr;
  }
}

}  // namespace sortie::plugin_host
