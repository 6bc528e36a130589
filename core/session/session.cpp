#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <sortie/dryrun.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/printable.hpp>
#include <sortie/model/private_files.hpp>
#include <sortie/plugin_host/plugin_isolation.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/session/launch_marker.hpp>
#include <sortie/session/session.hpp>
#include <sortie/session/submission.hpp>
#include <utility>

namespace sortie::session {

namespace {

std::string env_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

std::string join(const std::vector<std::string>& words, const char* sep) {
  std::string out;
  for (const auto& word : words) {
    if (!out.empty()) out += sep;
    out += word;
  }
  return out;
}

}  // namespace

std::string state_dir() {
  if (auto dir = env_or_empty("SORTIE_STATE_DIR"); !dir.empty()) return dir;
  if (auto xdg = env_or_empty("XDG_STATE_HOME"); !xdg.empty()) return xdg + "/sortie";
  return env_or_empty("HOME") + "/.local/state/sortie";
}

void print_registry_problem(const registry::Problem& problem) {
  std::fprintf(stderr, "sortie: warning: skipped manifest %s: %s\n",
               model::printable(problem.manifest_path).c_str(),
               model::printable_message(problem.message).c_str());
}

void print_builtin_shadowed(const registry::Shadowed& shadow) {
  std::fprintf(stderr,
               "sortie: warning: %s:%s of %s replaces the built-in one of %s; remove that "
               "manifest to use the built-in\n",
               registry::to_string(shadow.hidden.group), shadow.hidden.name.c_str(),
               model::printable(shadow.winner_manifest).c_str(),
               model::printable(shadow.hidden.manifest_path).c_str());
}

void print_reconciled(const std::string& settled) {
  std::fprintf(stderr, "sortie: reconciled %s\n", model::printable_message(settled).c_str());
}

void print_measurements_note(const std::string& note) {
  // A command may read an app's logs twice (its lookup, then its own read): one note each.
  static std::mutex mutex;
  static std::set<std::string> printed;
  const std::lock_guard<std::mutex> lock(mutex);
  if (!printed.insert(note).second) return;
  std::fprintf(stderr, "sortie: note: %s\n", model::printable_message(note).c_str());
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

bool needs_settling(const store::AppStore& store) {
  if (has_unsettled_submissions(store)) return true;
  for (const store::ExperimentRecord& experiment : store.launching_experiments()) {
    if (launcher_gone(experiment)) return true;
  }
  return false;
}

// The flags over SORTIE_ISOLATE_PLUGINS and SORTIE_PLUGIN_TIMEOUT.
plugin_host::IsolationOptions isolation_of(const SessionOptions& options) {
  plugin_host::IsolationOptions isolation = plugin_host::isolation_options_from_env({});
  if (options.isolate_plugins) isolation.isolate_all = true;
  if (options.plugin_timeout) isolation.call_timeout = *options.plugin_timeout;
  return isolation;
}

}  // namespace

Session::Session(SessionOptions options)
    : options_(std::move(options)),
      plugin_host_(isolation_of(options_), options_.quiet ? SORTIE_LOG_WARNING : SORTIE_LOG_INFO) {
  if (options_.session.empty()) options_.session = env_or_empty("SORTIE_SESSION");
  if (options_.session.empty()) options_.session = "default";
  plugin_timeout_chosen_ =
      options_.plugin_timeout.has_value() || !env_or_empty("SORTIE_PLUGIN_TIMEOUT").empty();
}

Session::~Session() = default;

const registry::Registry& Session::registry() {
  if (!registry_) {
    registry::SearchOptions search;
    search.replace_dirs = options_.plugin_dirs;
    // executable_path stays empty: the install prefix is that of the executable or library
    // holding this code (libsortie_launch.so in a user's launcher), never argv[0].
    registry_ = registry::Registry::discover(search);
  }
  return *registry_;
}

void Session::report_registry_problems() {
  if (problems_reported_) return;
  problems_reported_ = true;
  if (options_.on_registry_problem) {
    for (const auto& problem : registry().problems()) options_.on_registry_problem(problem);
  }
  if (options_.on_builtin_shadowed) {
    for (const auto& shadow : registry().shadowed()) {
      if (shadow.hidden_is_builtin) options_.on_builtin_shadowed(shadow);
    }
  }
}

plugin_host::PluginHost& Session::plugin_host() { return plugin_host_; }

store::AppStore& Session::store() {
  if (!store_) {
    store_ = store::AppStore::open(store::AppStore::default_path());
    for (const std::string& settled : reconcile_submissions(*this)) {
      if (options_.on_reconciled) options_.on_reconciled(settled);
    }
    for (const std::string& settled : reconcile_launches(*this)) {
      if (options_.on_reconciled) options_.on_reconciled(settled);
    }
  }
  return *store_;
}

const store::AppStore& Session::records() {
  if (store_) return *store_;
  // The stand-in for a store not created yet gives way once another process created it.
  std::error_code missing;
  if (reader_ && reader_->is_placeholder() &&
      std::filesystem::exists(store::AppStore::default_path(), missing)) {
    reader_.reset();
  }
  if (reader_) return *reader_;
  reader_ = store::AppStore::open_read_only(store::AppStore::default_path());
  // An older schema: the writers' open migrates it.
  if (!reader_) return store();
  if (needs_settling(*reader_)) {
    try {
      return store();
    } catch (const Error&) {
      // Cannot be written (disk full, read-only): what was read is shown; readers still derive
      // an interrupted launch, and the next command that can write settles both.
    }
  }
  return *reader_;
}

const model::ConfigFile& Session::config() {
  if (!config_) config_ = model::ConfigFile::load_default();
  return *config_;
}

std::unique_ptr<plugin_host::SchedulerClient> Session::scheduler(const std::string& name,
                                                                 const std::string& session) {
  report_registry_problems();
  const registry::Entry* entry = registry().find(registry::Group::kSchedulers, name);
  if (entry == nullptr) throw Error::not_found(unknown_scheduler_message(name));
  return plugin_host().scheduler(*entry, scheduler_config(name, session));
}

std::string Session::unknown_scheduler_message(const std::string& name) {
  std::vector<std::string> known;
  for (const auto* e : registry().entries(registry::Group::kSchedulers)) known.push_back(e->name);
  std::string message = "unknown scheduler '" + name + "'";
  auto close = registry().close_names(registry::Group::kSchedulers, name);
  if (!close.empty()) message += " (did you mean '" + close.front() + "'?)";
  return message + "; schedulers available: " + (known.empty() ? "none" : join(known, ", ")) +
         " (see `sortie plugins list`)";
}

namespace {

// <state dir>/<kind>/<name>, created private (private_files.hpp).
std::string component_state_dir(const std::string& kind, const std::string& name) {
  const std::string dir = state_dir() + "/" + kind + "/" + name;
  std::error_code ec;
  const model::PrivateCreation private_creation;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    throw Error::failed_precondition("cannot create state directory " + dir + ": " + ec.message());
  }
  return dir;
}

}  // namespace

std::string Session::packager_config(const std::string& name) {
  JsonText config;
  config.begin_object();
  config.key("schema").string("sortie.packager_config/1");
  config.key("name").string(name);
  config.key("state_dir").string(component_state_dir("packagers", name));
  config.end_object();
  return config.str();
}

std::string Session::image_provider_config(const std::string& name) {
  JsonText config;
  config.begin_object();
  config.key("schema").string("sortie.image_provider_config/1");
  config.key("name").string(name);
  config.key("state_dir").string(component_state_dir("image_providers", name));
  config.end_object();
  return config.str();
}

std::string Session::scheduler_config(const std::string& name, const std::string& session) {
  SchedulerConfig config;
  config.scheduler = name;
  config.session = session;
  config.state_dir = component_state_dir("schedulers", name);
  return write_scheduler_config(config);
}

std::optional<Resource> Session::named_resource(const std::string& name) {
  const registry::Entry* entry = registry().find(registry::Group::kNamedResources, name);
  if (entry == nullptr) return std::nullopt;
  if (!entry->plugin) return model::resource_from_json(entry->data_json, entry->manifest_path);
  auto json = plugin_host().resource_lookup(*entry, name);
  if (!json) return std::nullopt;
  return model::resource_from_json(*json, "named resource '" + name + "'");
}

model::NamedResourceLookup Session::resource_lookup() {
  return [this](const std::string& name) { return named_resource(name); };
}

std::vector<std::string> Session::resource_names() {
  std::vector<std::string> names;
  for (const auto* entry : registry().entries(registry::Group::kNamedResources)) {
    names.push_back(entry->name);
  }
  return names;
}

}  // namespace sortie::session
