// File: core/plugin_host/plugin_proxy.hpp
//
// Plugins run in a helper process (docs/plugin-policy.md, ISO-n). load_isolated() starts one
// `sortie-plugin-host` per library, which loads and validates it exactly as the host would, and
// returns a LoadedPlugin whose components are host-built tables that forward every call over the
// helper's channel. The clients (SchedulerClient, ...) therefore check statuses and payloads the
// same way whether a plugin runs here or there. Private to the plugin host.
#ifndef SORTIE_PLUGIN_HOST_PLUGIN_PROXY_HPP
#define SORTIE_PLUGIN_HOST_PLUGIN_PROXY_HPP

#include <sortie/plugin_abi.h>

#include <sortie/plugin_host/plugin_host.hpp>
#include <sortie/plugin_host/plugin_isolation.hpp>
#include <sortie/registry/registry.hpp>

namespace sortie::plugin_host::detail {

// Loads `library` in a helper once per process; later calls return the same result or throw the
// same Error. The result lives until the process exits.
const LoadedPlugin& load_isolated(const registry::PluginLibrary& library,
                                  const IsolationOptions& options);

// True for the components of LoadedPlugins that load_isolated() returned.
bool is_isolated(const sortie_component& component);

// The calls whose C signatures carry no handle, so the component's table cannot tell which
// helper to reach: the host makes them through these instead (for isolated components only).
sortie_status isolated_create(const sortie_component& component, sortie_str config, void** out,
                              const sortie_sink* err);
sortie_status isolated_names(const sortie_component& component, const sortie_sink* out,
                             const sortie_sink* err);
sortie_status isolated_lookup(const sortie_component& component, sortie_str name,
                              const sortie_sink* out, const sortie_sink* err);

}  // namespace sortie::plugin_host::detail

#endif  // SORTIE_PLUGIN_HOST_PLUGIN_PROXY_HPP
