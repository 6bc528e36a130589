// File: sortie/plugin_host/plugin_host.hpp
//
// Loads plugin libraries on first use (Boost.DLL, RTLD_NOW, never unloaded), negotiates the ABI
// and re-validates everything a plugin answers: version range, NULL tables, empty or duplicate
// component names, components the manifest promised but the library lacks, malformed JSON or a
// wrong "schema" in any payload. Every failure is an Error naming the plugin, its library and its
// manifest; a bad plugin never takes down the others (docs/plugin-policy.md).
#ifndef SORTIE_PLUGIN_HOST_PLUGIN_HOST_HPP
#define SORTIE_PLUGIN_HOST_PLUGIN_HOST_HPP

#include <sortie/plugin_abi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sortie/model/runopts.hpp>
#include <sortie/plugin_host/plugin_isolation.hpp>
#include <sortie/registry/registry.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sortie::plugin_host {

// "scheduler", "packager", "image provider", "named-resource registry"; nullptr for a kind this
// host does not know.
const char* component_kind_name(uint32_t kind) noexcept;

// A library after successful negotiation.
struct LoadedPlugin {
  std::string name;     // as the plugin reports it
  std::string version;  // as the plugin reports it
  uint32_t abi_version = 0;
  std::string library_path;
  std::string manifest_path;
  std::vector<const sortie_component*> components;  // validated, plugin-owned static data
};

// One log line as the host sees it (views valid during the callback only).
struct LogLineView {
  int32_t stream = SORTIE_STREAM_STDOUT;
  std::string_view role;
  uint32_t replica_id = 0;
  int64_t timestamp_ns = 0;
  std::string_view data;
};

class LogReader {
 public:
  LogReader(const sortie_scheduler_vtable* vtable, sortie_log_stream* stream, std::string context,
            int32_t print_level);
  ~LogReader();
  LogReader(const LogReader&) = delete;
  LogReader& operator=(const LogReader&) = delete;
  // Hands lines to on_line, waiting at most timeout_ms for the first; false once the stream ended.
  bool next(int64_t timeout_ms, const std::function<void(const LogLineView&)>& on_line);

 private:
  const sortie_scheduler_vtable* vtable_;
  sortie_log_stream* stream_;
  std::string context_;
  int32_t print_level_;
};

// A scheduler instance. Methods throw Error (with the plugin's status code) on failure; outputs
// are checked to be JSON objects with the expected "schema".
class SchedulerClient {
 public:
  // Diagnostics the plugin logs during a call are printed at or above `print_level`.
  SchedulerClient(const sortie_scheduler_vtable* vtable, sortie_scheduler* self,
                  std::string context, int32_t print_level);
  ~SchedulerClient();
  SchedulerClient(const SchedulerClient&) = delete;
  SchedulerClient& operator=(const SchedulerClient&) = delete;

  std::string run_options();  // "sortie.runopts/1"
  // run_options() parsed. A declaration sortie cannot read is the plugin's bug (INTERNAL, naming
  // it), never the user's mistake, though the parser is the one that checks user-typed values.
  std::vector<model::RunOpt> declared_run_options();
  std::string dryrun(std::string_view input);      // "sortie.dryrun/1"
  std::string schedule(std::string_view request);  // app id
  // Whether the plugin submits many requests at once (ABI-14); else schedule() each.
  bool can_schedule_batch() const;
  std::vector<std::string> schedule_batch(const std::vector<std::string>& requests);  // app ids
  std::optional<std::string> describe(std::string_view app_id);  // nullopt = NOT_FOUND
  std::string list(std::string_view filter);                     // "sortie.list/1"
  void cancel(std::string_view app_id);
  // Whether the plugin cancels many apps in one call (ABI-15); else cancel() each.
  bool can_cancel_batch() const;
  void cancel_batch(const std::vector<std::string>& app_ids);
  bool can_wait() const;
  std::string wait(std::string_view app_id, std::string_view known_state, int64_t timeout_ms);
  std::unique_ptr<LogReader> log_open(std::string_view app_id, std::string_view request);
  const std::string& context() const { return context_; }  // "scheduler 'x' (plugin y, lib z)"

 private:
  const sortie_scheduler_vtable* vtable_;
  sortie_scheduler* self_;
  std::string context_;
  int32_t print_level_;
};

class ImageProviderClient {
 public:
  ImageProviderClient(const sortie_image_provider_vtable* vtable, sortie_image_provider* self,
                      std::string context, int32_t print_level);
  ~ImageProviderClient();
  ImageProviderClient(const ImageProviderClient&) = delete;
  ImageProviderClient& operator=(const ImageProviderClient&) = delete;
  std::string fetch(std::string_view role_json);  // "sortie.image/1"
  const std::string& context() const { return context_; }

 private:
  const sortie_image_provider_vtable* vtable_;
  sortie_image_provider* self_;
  std::string context_;
  int32_t print_level_;
};

class PackagerClient {
 public:
  PackagerClient(const sortie_packager_vtable* vtable, sortie_packager* self, std::string context,
                 int32_t print_level);
  ~PackagerClient();
  PackagerClient(const PackagerClient&) = delete;
  PackagerClient& operator=(const PackagerClient&) = delete;
  std::string package(std::string_view request_json);  // "sortie.package_result/1"
  const std::string& context() const { return context_; }

 private:
  const sortie_packager_vtable* vtable_;
  sortie_packager* self_;
  std::string context_;
  int32_t print_level_;
};

// Loaded libraries are process-wide (negotiation happens once per process and the host API a
// plugin keeps must live until exit); a PluginHost holds only its settings, so two hosts in one
// process (two sessions) keep theirs apart.
class PluginHost {
 public:
  // `isolation` applies to the libraries first loaded through this host. Diagnostics plugins log
  // during calls through this host and its clients are printed to stderr at or above
  // `print_level` ("sortie: plugin NAME: message").
  explicit PluginHost(IsolationOptions isolation = {}, int32_t print_level = SORTIE_LOG_WARNING);

  const IsolationOptions& isolation() const { return isolation_; }
  void set_isolation(IsolationOptions isolation) { isolation_ = std::move(isolation); }
  int32_t print_level() const { return print_level_; }

  // Loads and negotiates the library once per process; later calls return the same result
  // (or throw the same error).
  const LoadedPlugin& load(const registry::PluginLibrary& library);

  // `config_json` is the create() payload (docs/payloads.md P-4).
  std::unique_ptr<SchedulerClient> scheduler(const registry::Entry& entry,
                                             const std::string& config_json);
  std::unique_ptr<ImageProviderClient> image_provider(const registry::Entry& entry,
                                                      const std::string& config_json);
  std::unique_ptr<PackagerClient> packager(const registry::Entry& entry,
                                           const std::string& config_json);
  // Code-backed named resources: names() and lookup(); data-only entries need no plugin.
  std::vector<std::string> resource_names(const registry::Entry& entry);
  std::optional<std::string> resource_lookup(const registry::Entry& entry, std::string_view name);

  // Diagnostics plugins sent through sortie_host_api.log.
  std::vector<std::string> diagnostics() const;

 private:
  IsolationOptions isolation_;
  int32_t print_level_;
};

}  // namespace sortie::plugin_host

#endif  // SORTIE_PLUGIN_HOST_PLUGIN_HOST_HPP
