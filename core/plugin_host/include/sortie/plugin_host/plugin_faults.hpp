// File: sortie/plugin_host/plugin_faults.hpp
//
// Crashes of in-process plugins (docs/plugin-policy.md, ISO-9), after GStreamer's registry
// blacklist: a plugin that crashes the host during a call is named on stderr with the call, the
// host exits 3, and the plugin stays refused in process until `sortie plugins doctor NAME`
// passes (isolated, it may still run: its helper contains it).
#ifndef SORTIE_PLUGIN_HOST_PLUGIN_FAULTS_HPP
#define SORTIE_PLUGIN_HOST_PLUGIN_FAULTS_HPP

#include <optional>
#include <string>

namespace sortie::plugin_host {

// Installs handlers for SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT, and for exit() and
// quick_exit(), that report and record a crash (or exit) inside a plugin call as above, with one
// file per plugin under `records_dir`. A signal or exit outside plugin calls keeps its default
// action. Call once, before any plugin is loaded.
void contain_plugin_crashes(const std::string& records_dir);

// What the recorded crash of `plugin_name` says ("SIGSEGV during schedule, record FILE"), or
// nullopt when none is recorded or crashes are not contained in this process.
std::optional<std::string> recorded_plugin_crash(const std::string& plugin_name);

// The call the recorded crash of `plugin_name` happened in ("schedule"), or nullopt as above.
std::optional<std::string> recorded_plugin_crash_call(const std::string& plugin_name);

// Drops the record (plugins doctor found the plugin sound).
void forget_plugin_crash(const std::string& plugin_name);

}  // namespace sortie::plugin_host

#endif  // SORTIE_PLUGIN_HOST_PLUGIN_FAULTS_HPP
