// File: core/session/include/sortie/session/session.hpp
//
// What every `sortie` subcommand may need, built lazily so that a command pays only for what it
// uses: `--help` reads nothing, `plugins list` reads manifests but loads no library, `status`
// loads one plugin and opens the store.
#ifndef SORTIE_SESSION_SESSION_HPP
#define SORTIE_SESSION_SESSION_HPP

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <sortie/model/config_file.hpp>
#include <sortie/model/model.hpp>
#include <sortie/model/spec_file.hpp>
#include <sortie/plugin_host/plugin_host.hpp>
#include <sortie/registry/registry.hpp>
#include <sortie/store/store.hpp>
#include <string>
#include <vector>

namespace sortie::session {

struct SessionOptions {
  std::vector<std::string> plugin_dirs;  // --plugin-dir: replaces the manifest search path
  std::string session;                   // --session, $SORTIE_SESSION, else "default"
  bool isolate_plugins = false;          // --isolate-plugins
  bool quiet = false;                    // --quiet: no plugin progress (INFO) on stderr
  std::optional<std::chrono::milliseconds> plugin_timeout;  // --plugin-timeout
  // Told once per session of each manifest the registry skipped (a session never prints; the
  // CLI and the launch API say it on stderr).
  std::function<void(const registry::Problem&)> on_registry_problem;
  // Told once per session of each built-in entry another manifest shadows (REG-15).
  std::function<void(const registry::Shadowed&)> on_builtin_shadowed;
  // Told of each interrupted submission the session settled when it opened the store
  // (submission.hpp), in one sentence.
  std::function<void(const std::string&)> on_reconciled;
  // Told, in one sentence, of each log stream an app's measurements were read without because its
  // scheduler refused the file there (a job made it a FIFO or a link: docs/experiments.md XF-36).
  std::function<void(const std::string&)> on_measurements_note;
};

class Session {
 public:
  // Gives its plugin host the isolation settings (flags over SORTIE_ISOLATE_PLUGINS and
  // SORTIE_PLUGIN_TIMEOUT) and the print level of plugin diagnostics; a malformed variable is an
  // Error naming it. Nothing process-wide is changed, so sessions in one process stay apart.
  explicit Session(SessionOptions options);
  ~Session();

  const SessionOptions& options() const { return options_; }
  // True when --plugin-timeout or SORTIE_PLUGIN_TIMEOUT chose the isolated calls' deadline.
  bool plugin_timeout_chosen() const { return plugin_timeout_chosen_; }
  const registry::Registry& registry();
  plugin_host::PluginHost& plugin_host();
  // The writers' connection, opened on first use, when it also settles interrupted submissions
  // (submission.hpp) and launches (launch_marker.hpp).
  store::AppStore& store();
  // The readers' view (docs/store.md, "Readers"): the writers' connection once open, else a
  // read-only one that creates and migrates nothing. When a dead process left something to
  // settle, it opens the writers' connection to settle it, and reads on when it cannot.
  const store::AppStore& records();
  const model::ConfigFile& config();

  // The scheduler component `name`, created with its config (docs/payloads.md P-4); an unknown
  // name is an error listing the schedulers that exist.
  std::unique_ptr<plugin_host::SchedulerClient> scheduler(const std::string& name,
                                                          const std::string& session);
  // "unknown scheduler 'NAME' (did you mean ...); schedulers available: ...".
  std::string unknown_scheduler_message(const std::string& name);
  // The create() payload for scheduler `name` (P-4); creates its state directory.
  std::string scheduler_config(const std::string& name, const std::string& session);
  // The create() payload for packager `name` (P-4); creates its state directory.
  std::string packager_config(const std::string& name);
  std::string image_provider_config(const std::string& name);
  // Resolves a named resource from data manifests or code-backed registries.
  std::optional<Resource> named_resource(const std::string& name);
  model::NamedResourceLookup resource_lookup();
  // Every named resource the registry lists (for "did you mean" hints).
  std::vector<std::string> resource_names();

  // Hands registry problems (bad manifests) to on_registry_problem and shadowed built-ins to
  // on_builtin_shadowed once, so a broken or impostor third-party manifest is visible without
  // stopping the command.
  void report_registry_problems();

 private:
  SessionOptions options_;
  std::optional<registry::Registry> registry_;
  plugin_host::PluginHost plugin_host_;
  std::unique_ptr<store::AppStore> store_;
  std::unique_ptr<store::AppStore> reader_;
  std::optional<model::ConfigFile> config_;
  bool problems_reported_ = false;
  bool plugin_timeout_chosen_ = false;
};

// What the CLI and the launch API give as on_registry_problem: one warning line on stderr.
void print_registry_problem(const registry::Problem& problem);
// What the CLI and the launch API give as on_builtin_shadowed: one warning line on stderr.
void print_builtin_shadowed(const registry::Shadowed& shadow);
// Says on stderr what a session settled when it opened the store (on_reconciled).
void print_reconciled(const std::string& settled);
// Says on stderr which log stream an app's measurements were read without (on_measurements_note),
// once per process.
void print_measurements_note(const std::string& note);

// The directory where sortie keeps state: $SORTIE_STATE_DIR, else $XDG_STATE_HOME/sortie, else
// ~/.local/state/sortie.
std::string state_dir();

// Nanoseconds since the Unix epoch.
int64_t now_ns();

}  // namespace sortie::session

#endif  // SORTIE_SESSION_SESSION_HPP
