// File: core/plugin_host/plugin_loader.hpp
//
// The process-wide table of plugin libraries: each is opened and negotiated at most once per
// process (the ABI calls the entry point once), kept loaded until exit, and a failure is
// remembered so that later uses report it again without retrying. Private to the plugin host.
#ifndef SORTIE_PLUGIN_HOST_PLUGIN_LOADER_HPP
#define SORTIE_PLUGIN_HOST_PLUGIN_LOADER_HPP

#include <cstdint>
#include <sortie/plugin_host/plugin_host.hpp>
#include <sortie/registry/registry.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::plugin_host::detail {

// The ABI versions this host speaks.
inline constexpr uint32_t kHostAbiMin = SORTIE_ABI_VERSION(1, 0);
inline constexpr uint32_t kHostAbiMax = SORTIE_ABI_CURRENT;

// Opens, negotiates and validates `library` (docs/plugin-policy.md), or throws the Error of the
// first attempt. The result lives until the process exits.
const LoadedPlugin& load_plugin(const registry::PluginLibrary& library);

// "plugin 'acme' (/x/libacme.so, manifest /y/acme.json)".
std::string plugin_context(const registry::PluginLibrary& library);

// Records a diagnostic; one at or above the print level of this thread (DiagnosticPrintScope)
// is also printed to stderr.
void add_diagnostic(int32_t level, const std::string& plugin_name, std::string_view message);
std::vector<std::string> diagnostics();

// Sends every later diagnostic to `forward` instead of recording it: the isolation helper hands
// them to the host that started it, which records them.
using DiagnosticForwarder = void (*)(int32_t level, const std::string& plugin_name,
                                     std::string_view message);
void forward_diagnostics(DiagnosticForwarder forward);

}  // namespace sortie::plugin_host::detail

#endif  // SORTIE_PLUGIN_HOST_PLUGIN_LOADER_HPP
