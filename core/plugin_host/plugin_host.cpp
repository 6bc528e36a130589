// File: core/plugin_host/plugin_host.cpp
//
// From registry entries to live components: loads the entry's library in process
// (plugin_loader.cpp) or in a helper process (plugin_proxy.cpp), finds the component by kind and
// name, and creates it.
#include <sortie/model/error.hpp>
#include <sortie/plugin_host/plugin_faults.hpp>
#include <sortie/plugin_host/plugin_host.hpp>
#include <sortie/plugin_host/plugin_isolation.hpp>
#include <string>
#include <utility>

#include "plugin_calls.hpp"
#include "plugin_loader.hpp"
#include "plugin_proxy.hpp"

namespace sortie::plugin_host {
namespace {

using detail::as_str;
using detail::check_status;
using detail::invoke;
using detail::StringSink;

const char* group_noun(registry::Group group) {
  switch (group) {
    case registry::Group::kSchedulers:
      return "scheduler";
    case registry::Group::kPackagers:
      return "packager";
    case registry::Group::kImageProviders:
      return "image provider";
    case registry::Group::kNamedResources:
      return "named-resource registry";
    case registry::Group::kComponents:
      return "component";
    case registry::Group::kExecutors:
      return "executor";
  }
  return "entry";
}

// "scheduler 'x' (plugin y, /lib/path)".
std::string component_context(const registry::Entry& entry, const LoadedPlugin& plugin) {
  return std::string(group_noun(entry.group)) + " '" + entry.name + "' (plugin " + plugin.name +
         ", " + plugin.library_path + ")";
}

// Loads `library` in process or, when isolation applies to it, in a helper process.
const LoadedPlugin& load_library(const registry::PluginLibrary& library, IsolationOptions options) {
  if (!library.isolate && !options.isolate_all) {
    if (const auto crash = recorded_plugin_crash(library.name)) {
      throw Error::failed_precondition(
          detail::plugin_context(library) + ": it crashed sortie before (" + *crash +
          "), so it is not loaded in process until `sortie plugins doctor " + library.name +
          "` passes; --isolate-plugins runs it in a helper process meanwhile");
    }
    return detail::load_plugin(library);
  }
  if (options.helper_path.empty()) options.helper_path = default_helper_path();
  return detail::load_isolated(library, options);
}

// Loads the entry's plugin and returns its component of `kind`.
const sortie_component& find_component(const registry::Entry& entry, registry::Group group,
                                       uint32_t kind, const IsolationOptions& isolation,
                                       const LoadedPlugin*& plugin) {
  if (entry.group != group) {
    throw Error::invalid_argument(std::string(to_string(entry.group)) + " entry '" + entry.name +
                                  "' (manifest " + entry.manifest_path + ") cannot be used where " +
                                  to_string(group) + " is expected");
  }
  if (entry.plugin == nullptr) {
    throw Error::invalid_argument(std::string(group_noun(group)) + " '" + entry.name +
                                  "' (manifest " + entry.manifest_path +
                                  ") is a data entry with no plugin library; read its "
                                  "data instead of calling it");
  }
  plugin = &load_library(*entry.plugin, isolation);
  for (const sortie_component* component : plugin->components) {
    if (component->kind == kind && entry.name == component->name) return *component;
  }
  // Negotiation checked the library against its manifest; this entry came from another one.
  throw Error::failed_precondition(detail::plugin_context(*entry.plugin) + ": the library has no " +
                                   group_noun(group) + " '" + entry.name + "' (entry from " +
                                   entry.manifest_path + ")");
}

// Creates an instance of the entry's component through its vtable's create() (or its helper
// process's, for an isolated plugin) and wraps it in the matching client, which destroys it.
template <class Client, class Vtable, class Handle>
std::unique_ptr<Client> create_component(const registry::Entry& entry, registry::Group group,
                                         uint32_t kind, const std::string& config_json,
                                         const IsolationOptions& isolation, int32_t print_level) {
  const LoadedPlugin* plugin = nullptr;
  const sortie_component& component = find_component(entry, group, kind, isolation, plugin);
  const auto* vtable = static_cast<const Vtable*>(component.vtable);
  const std::string context = component_context(entry, *plugin);
  Handle* self = nullptr;
  StringSink err;
  const sortie_status status = invoke(context, "create", [&] {
    if (!detail::is_isolated(component)) {
      return vtable->create(as_str(config_json), &self, err.get());
    }
    void* handle = nullptr;
    const sortie_status created =
        detail::isolated_create(component, as_str(config_json), &handle, err.get());
    self = static_cast<Handle*>(handle);
    return created;
  });
  check_status(context, "create", status, err.text());
  if (self == nullptr) {
    throw Error::internal(context +
                          ": create succeeded but returned a NULL handle; this is a "
                          "bug in the plugin");
  }
  return std::make_unique<Client>(vtable, self, context, print_level);
}

}  // namespace

PluginHost::PluginHost(IsolationOptions isolation, int32_t print_level)
    : isolation_(std::move(isolation)), print_level_(print_level) {}

const LoadedPlugin& PluginHost::load(const registry::PluginLibrary& library) {
  const detail::DiagnosticPrintScope scope(print_level_);
  return load_library(library, isolation_);
}

std::unique_ptr<SchedulerClient> PluginHost::scheduler(const registry::Entry& entry,
                                                       const std::string& config_json) {
  const detail::DiagnosticPrintScope scope(print_level_);
  return create_component<SchedulerClient, sortie_scheduler_vtable, sortie_scheduler>(
      entry, registry::Group::kSchedulers, SORTIE_KIND_SCHEDULER, config_json, isolation_,
      print_level_);
}

std::unique_ptr<ImageProviderClient> PluginHost::image_provider(const registry::Entry& entry,
                                                                const std::string& config_json) {
  const detail::DiagnosticPrintScope scope(print_level_);
  return create_component<ImageProviderClient, sortie_image_provider_vtable, sortie_image_provider>(
      entry, registry::Group::kImageProviders, SORTIE_KIND_IMAGE_PROVIDER, config_json, isolation_,
      print_level_);
}

std::unique_ptr<PackagerClient> PluginHost::packager(const registry::Entry& entry,
                                                     const std::string& config_json) {
  const detail::DiagnosticPrintScope scope(print_level_);
  return create_component<PackagerClient, sortie_packager_vtable, sortie_packager>(
      entry, registry::Group::kPackagers, SORTIE_KIND_PACKAGER, config_json, isolation_,
      print_level_);
}

std::vector<std::string> PluginHost::resource_names(const registry::Entry& entry) {
  const detail::DiagnosticPrintScope scope(print_level_);
  const LoadedPlugin* plugin = nullptr;
  const sortie_component& component = find_component(
      entry, registry::Group::kNamedResources, SORTIE_KIND_NAMED_RESOURCES, isolation_, plugin);
  const auto* vtable = static_cast<const sortie_named_resources_vtable*>(component.vtable);
  const std::string context = component_context(entry, *plugin);
  StringSink out(limits::kPluginAnswerBytes);
  StringSink err;
  const sortie_status status = invoke(context, "names", [&] {
    return detail::is_isolated(component) ? detail::isolated_names(component, out.get(), err.get())
                                          : vtable->names(out.get(), err.get());
  });
  check_status(context, "names", status, err.text());
  return detail::resource_names_of(context, out);
}

std::optional<std::string> PluginHost::resource_lookup(const registry::Entry& entry,
                                                       std::string_view name) {
  const detail::DiagnosticPrintScope scope(print_level_);
  const LoadedPlugin* plugin = nullptr;
  const sortie_component& component = find_component(
      entry, registry::Group::kNamedResources, SORTIE_KIND_NAMED_RESOURCES, isolation_, plugin);
  const auto* vtable = static_cast<const sortie_named_resources_vtable*>(component.vtable);
  const std::string context = component_context(entry, *plugin);
  StringSink out(limits::kPluginAnswerBytes);
  StringSink err;
  const sortie_status status = invoke(context, "lookup", [&] {
    return detail::is_isolated(component)
               ? detail::isolated_lookup(component, as_str(name), out.get(), err.get())
               : vtable->lookup(as_str(name), out.get(), err.get());
  });
  if (status == SORTIE_NOT_FOUND) return std::nullopt;
  check_status(context, "lookup", status, err.text());
  detail::check_payload(context, "lookup", out, "sortie.resource/1");
  return out.text();
}

std::vector<std::string> PluginHost::diagnostics() const { return detail::diagnostics(); }

}  // namespace sortie::plugin_host
