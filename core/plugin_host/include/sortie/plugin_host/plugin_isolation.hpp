// File: sortie/plugin_host/plugin_isolation.hpp
//
// Which plugin libraries run in a helper process (`sortie-plugin-host`) instead of inside the
// host, and the per-call deadline applied to them (docs/plugin-policy.md, rules ISO-n). An
// isolated plugin that crashes, aborts, exits, hangs or writes to stdout becomes an Error naming
// the plugin, its library and the call, and the host keeps running. Each PluginHost has its own
// settings; they apply to the libraries first loaded through it (a library is loaded once per
// process).
#ifndef SORTIE_PLUGIN_HOST_PLUGIN_ISOLATION_HPP
#define SORTIE_PLUGIN_HOST_PLUGIN_ISOLATION_HPP

#include <chrono>
#include <string>

namespace sortie::plugin_host {

struct IsolationOptions {
  // Every library runs isolated (`--isolate-plugins`, SORTIE_ISOLATE_PLUGINS=1); otherwise only
  // those whose manifest says "isolation": "subprocess".
  bool isolate_all = false;
  // Deadline of each call into an isolated plugin; wait() and log_next() get their own timeout
  // on top of it. A plugin that misses it is stopped.
  std::chrono::milliseconds call_timeout{std::chrono::seconds(120)};
  // The helper executable; empty = the one installed beside the running executable
  // (<bindir>/../libexec/sortie/sortie-plugin-host).
  std::string helper_path;
};

// The helper installed beside the running executable or library, used when helper_path is empty.
std::string default_helper_path();

// `base` updated from SORTIE_ISOLATE_PLUGINS ("1"/"true" or "0"/"false") and
// SORTIE_PLUGIN_TIMEOUT (seconds, > 0); a malformed value is an Error naming the variable.
IsolationOptions isolation_options_from_env(IsolationOptions base);

// Parses a positive number of seconds ("30", "0.5") for `what` (an option or variable name).
std::chrono::milliseconds parse_timeout_seconds(const std::string& text, const std::string& what);

}  // namespace sortie::plugin_host

#endif  // SORTIE_PLUGIN_HOST_PLUGIN_ISOLATION_HPP
