// File: core/plugin_host/plugin_proxy.cpp
//
// The host's side of plugin isolation: one RemoteLibrary per isolated library (its helper
// process, one call at a time) and the C function tables that forward each ABI call to it.
#include "plugin_proxy.hpp"

#include <rapidjson/document.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sortie/model/error.hpp>
#include <string>
#include <utility>
#include <vector>

#include "plugin_helper.hpp"
#include "plugin_loader.hpp"
#include "plugin_wire.hpp"

namespace sortie::plugin_host::detail {
namespace {

using std::chrono::milliseconds;

void write_to(const sortie_sink* sink, std::string_view text) {
  if (sink != nullptr && sink->write != nullptr && !text.empty()) {
    sink->write(sink->ctx, text.data(), text.size());
  }
}

std::string_view view_of(sortie_str text) {
  return text.ptr == nullptr ? std::string_view() : std::string_view(text.ptr, text.len);
}

std::string string_member(const rapidjson::Value& object, const char* name) {
  const auto found = object.FindMember(name);
  if (found == object.MemberEnd() || !found->value.IsString()) return {};
  return std::string(found->value.GetString(), found->value.GetStringLength());
}

int64_t int_member(const rapidjson::Value& object, const char* name) {
  const auto found = object.FindMember(name);
  return found != object.MemberEnd() && found->value.IsInt64() ? found->value.GetInt64() : 0;
}

// At most 200 bytes of what a plugin printed, on one line, for an error message.
std::string quoted_excerpt(const std::string& text) {
  std::string excerpt;
  for (const char c : text.substr(0, 200)) {
    if (c == '\n') {
      excerpt += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      excerpt += '?';
    } else {
      excerpt += c;
    }
  }
  return "'" + excerpt + (text.size() > 200 ? "...'" : "'");
}

// One isolated library's helper process, used by one call at a time.
class RemoteLibrary {
 public:
  struct Reply {
    sortie_status status = SORTIE_OK;
    std::string err;
    std::string out;
    rapidjson::Document document;
  };

  RemoteLibrary(std::string plugin_name, IsolationOptions options)
      : plugin_name_(std::move(plugin_name)), options_(std::move(options)) {}

  const std::string& plugin_name() const { return plugin_name_; }
  bool running() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return helper_ && helper_->running();
  }

  // Starts the helper, which loads and negotiates `library`; throws the Error it reports.
  rapidjson::Document load(const registry::PluginLibrary& library) {
    const std::string context = plugin_context(library);
    try {
      helper_.emplace(options_.helper_path);
    } catch (const Error& e) {
      throw Error(e.status(), context + ": " + e.what());
    }
    std::vector<std::string> provides;
    for (const auto& [group, name] : library.provides) {
      provides.push_back(
          WireObject().string("group", registry::to_string(group)).string("name", name).str());
    }
    const WireObject description = WireObject()
                                       .string("name", library.name)
                                       .string("version", library.version)
                                       .string("library", library.library_path)
                                       .string("manifest", library.manifest_path)
                                       .number("abi_min", library.abi_min)
                                       .number("abi_max", library.abi_max)
                                       .raw("provides", wire_array(provides));
    Reply reply = call(WireObject()
                           .string("call", "load")
                           .number("wire", kWireProtocolVersion)
                           .raw("library", description.str()),
                       "loading (dlopen and sortie_plugin_negotiate)", std::nullopt);
    if (reply.status != SORTIE_OK) {
      helper_.reset();
      // The helper's own errors already name the plugin as the in-process loader does.
      if (reply.err.rfind(context, 0) == 0) throw Error(reply.status, reply.err);
      throw Error(reply.status, context + ": " + reply.err);
    }
    const auto wire = reply.document.FindMember("wire");
    if (wire == reply.document.MemberEnd() || !wire->value.IsInt64() ||
        wire->value.GetInt64() != kWireProtocolVersion) {
      helper_.reset();
      throw Error::failed_precondition(
          context + ": the isolation helper (sortie-plugin-host) speaks wire protocol " +
          (wire != reply.document.MemberEnd() && wire->value.IsInt64()
               ? std::to_string(wire->value.GetInt64())
               : std::string("none")) +
          ", this sortie " + std::to_string(kWireProtocolVersion) +
          " (ISO-3): use the helper installed with this sortie");
    }
    return std::move(reply.document);
  }

  // Sends one request. Every failure, the helper's or the plugin's, becomes a status and an
  // `err` text; this never throws. `extra` lengthens the deadline (wait, log_next); an empty
  // `extra` for those calls means no deadline.
  Reply call(const WireObject& request, const char* call, std::optional<milliseconds> extra,
             bool deadline = true) {
    Reply reply;
    try {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (!helper_) {
        reply.status = SORTIE_FAILED_PRECONDITION;
        reply.err = "the plugin's process is not running";
        return reply;
      }
      std::optional<milliseconds> timeout;
      if (deadline) timeout = options_.call_timeout + extra.value_or(milliseconds(0));
      HelperProcess::Outcome outcome = helper_->exchange(request.str(), call, timeout);
      if (!outcome.reply) {
        reply.status = outcome.status;
        reply.err = outcome.failure + "; run `sortie plugins doctor " + plugin_name_ +
                    "` to check the plugin";
        return reply;
      }
      if (!parse_wire_reply(*outcome.reply, reply.document)) {
        const std::string failure = "the plugin's process sent a malformed reply to " +
                                    std::string(call) + " and was stopped";
        helper_->stop(SORTIE_INTERNAL, failure);
        reply.status = SORTIE_INTERNAL;
        reply.err = failure;
        return reply;
      }
      record_diagnostics(reply.document);
      reply.status = reply.document["status"].GetInt();
      if (!outcome.stdout_text.empty()) {
        const std::string complaint =
            "the plugin wrote to stdout during " + std::string(call) + ": " +
            quoted_excerpt(outcome.stdout_text) +
            "; a plugin writes only through its sinks and sortie_host_api.log (ABI-11), so "
            "sortie kept the text off its own output";
        // A submitted app must never be lost: a successful schedule or schedule_batch stands
        // (and gets recorded), with the misbehaviour reported as an error diagnostic. Any other
        // call fails.
        const std::string_view name(call);
        if ((name == "schedule" || name == "schedule_batch") && reply.status == SORTIE_OK) {
          add_diagnostic(SORTIE_LOG_ERROR, plugin_name_, complaint);
        } else {
          reply.status = SORTIE_INTERNAL;
          reply.err = complaint + " and failed the call";
          return reply;
        }
      }
      reply.err = string_member(reply.document, "err");
      reply.out = string_member(reply.document, "out");
    } catch (const std::exception& e) {
      reply.status = SORTIE_INTERNAL;
      reply.err = std::string("calling the plugin's process failed: ") + e.what();
    }
    return reply;
  }

 private:
  void record_diagnostics(const rapidjson::Document& document) {
    const auto found = document.FindMember("diagnostics");
    if (found == document.MemberEnd() || !found->value.IsArray()) return;
    for (const auto& item : found->value.GetArray()) {
      if (!item.IsObject()) continue;
      add_diagnostic(static_cast<int32_t>(int_member(item, "level")), plugin_name_,
                     string_member(item, "message"));
    }
  }

  std::string plugin_name_;
  IsolationOptions options_;
  std::mutex mutex_;
  std::optional<HelperProcess> helper_;
};

// What a host-built handle (scheduler, image provider, packager or log stream) stands for.
struct RemoteHandle {
  RemoteLibrary* remote;
  int64_t id;
};

RemoteHandle& handle_of(const void* self) {
  return *static_cast<RemoteHandle*>(const_cast<void*>(self));
}

WireObject request(const char* call, const void* self) {
  return WireObject().string("call", call).number("handle", handle_of(self).id);
}

// Sends the request and hands the reply's output and error text to the plugin-style sinks.
sortie_status forward(const void* self, const WireObject& message, const char* call,
                      const sortie_sink* out, const sortie_sink* err,
                      std::optional<milliseconds> extra = std::nullopt, bool deadline = true) {
  RemoteLibrary::Reply reply = handle_of(self).remote->call(message, call, extra, deadline);
  write_to(out, reply.out);
  write_to(err, reply.err);
  return reply.status;
}

// Releases a handle. After the helper's death (already reported by the call that saw it) the
// plugin's objects are gone with it, so there is nothing to release.
void release(void* self, const char* call) {
  if (self == nullptr) return;
  if (!handle_of(self).remote->running()) {
    delete &handle_of(self);
    return;
  }
  RemoteLibrary::Reply reply = handle_of(self).remote->call(request(call, self), call, {});
  if (reply.status != SORTIE_OK) {
    add_diagnostic(SORTIE_LOG_WARNING, handle_of(self).remote->plugin_name(),
                   std::string(call) + " failed: " + reply.err);
  }
  delete &handle_of(self);
}

constexpr const char* kNoHandle =
    "a component of an isolated plugin is created and called through "
    "sortie::plugin_host::PluginHost; "
    "its C table cannot tell which plugin process to reach";

// The C tables' calls that carry no handle (see plugin_proxy.hpp).
template <class Handle>
sortie_status refuse_create(sortie_str, Handle** out, const sortie_sink* err) {
  *out = nullptr;
  write_to(err, kNoHandle);
  return SORTIE_FAILED_PRECONDITION;
}
sortie_status refuse_names(const sortie_sink*, const sortie_sink* err) {
  write_to(err, kNoHandle);
  return SORTIE_FAILED_PRECONDITION;
}
sortie_status refuse_lookup(sortie_str, const sortie_sink*, const sortie_sink* err) {
  write_to(err, kNoHandle);
  return SORTIE_FAILED_PRECONDITION;
}

void scheduler_destroy(sortie_scheduler* self) { release(self, "destroy"); }
sortie_status scheduler_run_options(sortie_scheduler* self, const sortie_sink* out,
                                    const sortie_sink* err) {
  return forward(self, request("run_options", self), "run_options", out, err);
}
sortie_status scheduler_dryrun(sortie_scheduler* self, sortie_str input, const sortie_sink* out,
                               const sortie_sink* err) {
  return forward(self, request("dryrun", self).string("input", view_of(input)), "dryrun", out, err);
}
sortie_status scheduler_schedule(sortie_scheduler* self, sortie_str input, const sortie_sink* out,
                                 const sortie_sink* err) {
  return forward(self, request("schedule", self).string("input", view_of(input)), "schedule", out,
                 err);
}
// A batch call's `count` strings as one JSON array.
std::string wire_strings_of(const sortie_str* items, size_t count) {
  std::vector<std::string_view> texts;
  for (size_t i = 0; i < count; ++i) texts.push_back(view_of(items[i]));
  return wire_strings(texts);
}
// The whole batch is one request under one deadline, like a single schedule.
sortie_status scheduler_schedule_batch(sortie_scheduler* self, const sortie_str* requests,
                                       size_t count, const sortie_sink* out,
                                       const sortie_sink* err) {
  return forward(self,
                 request("schedule_batch", self).raw("inputs", wire_strings_of(requests, count)),
                 "schedule_batch", out, err);
}
// One request for every app, like schedule_batch.
sortie_status scheduler_cancel_batch(sortie_scheduler* self, const sortie_str* app_ids,
                                     size_t count, const sortie_sink* err) {
  return forward(self, request("cancel_batch", self).raw("inputs", wire_strings_of(app_ids, count)),
                 "cancel_batch", nullptr, err);
}
sortie_status scheduler_describe(sortie_scheduler* self, sortie_str input, const sortie_sink* out,
                                 const sortie_sink* err) {
  return forward(self, request("describe", self).string("input", view_of(input)), "describe", out,
                 err);
}
sortie_status scheduler_list(sortie_scheduler* self, sortie_str input, const sortie_sink* out,
                             const sortie_sink* err) {
  return forward(self, request("list", self).string("input", view_of(input)), "list", out, err);
}
sortie_status scheduler_cancel(sortie_scheduler* self, sortie_str input, const sortie_sink* err) {
  return forward(self, request("cancel", self).string("input", view_of(input)), "cancel", nullptr,
                 err);
}
sortie_status scheduler_wait(sortie_scheduler* self, sortie_str app_id, sortie_str known_state,
                             int64_t timeout_ms, const sortie_sink* out, const sortie_sink* err) {
  const WireObject message = request("wait", self)
                                 .string("input", view_of(app_id))
                                 .string("known_state", view_of(known_state))
                                 .number("timeout_ms", timeout_ms);
  // A wait without a limit may legitimately block for ever: no deadline then.
  return forward(self, message, "wait", out, err, milliseconds(std::max<int64_t>(timeout_ms, 0)),
                 timeout_ms >= 0);
}
sortie_status scheduler_log_open(sortie_scheduler* self, sortie_str app_id, sortie_str log_request,
                                 sortie_log_stream** out, const sortie_sink* err) {
  *out = nullptr;
  const WireObject message = request("log_open", self)
                                 .string("input", view_of(app_id))
                                 .string("request", view_of(log_request));
  RemoteLibrary::Reply reply = handle_of(self).remote->call(message, "log_open", {});
  write_to(err, reply.err);
  if (reply.status == SORTIE_OK) {
    *out = reinterpret_cast<sortie_log_stream*>(
        new RemoteHandle{handle_of(self).remote, int_member(reply.document, "stream")});
  }
  return reply.status;
}
sortie_status scheduler_log_next(sortie_log_stream* stream, int64_t timeout_ms,
                                 const sortie_log_sink* sink, int32_t* eof,
                                 const sortie_sink* err) {
  const WireObject message = request("log_next", stream).number("timeout_ms", timeout_ms);
  RemoteLibrary::Reply reply = handle_of(stream).remote->call(
      message, "log_next", milliseconds(std::max<int64_t>(timeout_ms, 0)), timeout_ms >= 0);
  write_to(err, reply.err);
  if (reply.status != SORTIE_OK) return reply.status;
  *eof = static_cast<int32_t>(int_member(reply.document, "eof"));
  const auto lines = reply.document.FindMember("lines");
  if (lines == reply.document.MemberEnd() || !lines->value.IsArray()) return SORTIE_OK;
  for (const auto& item : lines->value.GetArray()) {
    if (!item.IsObject()) continue;
    const std::string role = string_member(item, "role");
    const std::string data = string_member(item, "data");
    sortie_log_line line{};
    line.struct_size = sizeof(line);
    line.stream = static_cast<int32_t>(int_member(item, "stream"));
    line.role = sortie_str{role.data(), role.size()};
    line.replica_id = static_cast<uint32_t>(int_member(item, "replica"));
    line.timestamp_ns = int_member(item, "timestamp_ns");
    line.data = sortie_str{data.data(), data.size()};
    if (sink != nullptr && sink->line != nullptr) sink->line(sink->ctx, &line);
  }
  return SORTIE_OK;
}
void scheduler_log_close(sortie_log_stream* stream) { release(stream, "log_close"); }

void packager_destroy(sortie_packager* self) { release(self, "destroy"); }
sortie_status packager_package(sortie_packager* self, sortie_str input, const sortie_sink* out,
                               const sortie_sink* err) {
  return forward(self, request("package", self).string("input", view_of(input)), "package", out,
                 err);
}

void image_provider_destroy(sortie_image_provider* self) { release(self, "destroy"); }
sortie_status image_provider_fetch(sortie_image_provider* self, sortie_str input,
                                   const sortie_sink* out, const sortie_sink* err) {
  return forward(self, request("fetch", self).string("input", view_of(input)), "fetch", out, err);
}

// One component of an isolated library; `component` comes first so that the LoadedPlugin's
// pointers identify it.
struct ProxyComponent {
  sortie_component component{};
  std::string name;
  std::string description;
  RemoteLibrary* remote = nullptr;
  int64_t index = 0;  // in the helper's list
  sortie_scheduler_vtable scheduler{};
  sortie_packager_vtable packager{};
  sortie_image_provider_vtable image_provider{};
  sortie_named_resources_vtable named_resources{};
};

bool has_call(const rapidjson::Value& component, std::string_view call) {
  const auto calls = component.FindMember("calls");
  if (calls == component.MemberEnd() || !calls->value.IsArray()) return false;
  for (const auto& item : calls->value.GetArray()) {
    if (item.IsString() && call == item.GetString()) return true;
  }
  return false;
}

// Fills the table of `proxy`'s kind; optional scheduler calls only where the plugin has them.
void build_vtable(ProxyComponent& proxy, const rapidjson::Value& description) {
  switch (proxy.component.kind) {
    case SORTIE_KIND_SCHEDULER: {
      sortie_scheduler_vtable& v = proxy.scheduler;
      v = {sizeof(v),
           refuse_create<sortie_scheduler>,
           scheduler_destroy,
           scheduler_run_options,
           scheduler_dryrun,
           scheduler_schedule,
           scheduler_describe,
           has_call(description, "list") ? scheduler_list : nullptr,
           scheduler_cancel,
           has_call(description, "wait") ? scheduler_wait : nullptr,
           nullptr,
           nullptr,
           nullptr,
           has_call(description, "schedule_batch") ? scheduler_schedule_batch : nullptr,
           has_call(description, "cancel_batch") ? scheduler_cancel_batch : nullptr};
      if (has_call(description, "log")) {
        v.log_open = scheduler_log_open;
        v.log_next = scheduler_log_next;
        v.log_close = scheduler_log_close;
      }
      proxy.component.vtable = &v;
      break;
    }
    case SORTIE_KIND_PACKAGER:
      proxy.packager = {sizeof(proxy.packager), refuse_create<sortie_packager>, packager_destroy,
                        packager_package};
      proxy.component.vtable = &proxy.packager;
      break;
    case SORTIE_KIND_IMAGE_PROVIDER:
      proxy.image_provider = {sizeof(proxy.image_provider), refuse_create<sortie_image_provider>,
                              image_provider_destroy, image_provider_fetch};
      proxy.component.vtable = &proxy.image_provider;
      break;
    case SORTIE_KIND_NAMED_RESOURCES:
      proxy.named_resources = {sizeof(proxy.named_resources), refuse_names, refuse_lookup};
      proxy.component.vtable = &proxy.named_resources;
      break;
  }
}

// One isolated library's slot; never freed, like the in-process table's (handles refer to it).
struct IsolatedRecord {
  std::unique_ptr<RemoteLibrary> remote;
  std::vector<std::unique_ptr<ProxyComponent>> components;
  std::optional<LoadedPlugin> plugin;
  std::optional<Error> error;
};

struct IsolatedTable {
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<IsolatedRecord>> records;  // by library path
  std::map<const sortie_component*, const ProxyComponent*> proxies;
};

IsolatedTable& isolated_table() {
  static IsolatedTable* table = new IsolatedTable;  // leaked on purpose: see IsolatedRecord
  return *table;
}

const ProxyComponent& proxy_of(const sortie_component& component) {
  IsolatedTable& table = isolated_table();
  const std::lock_guard<std::mutex> lock(table.mutex);
  return *table.proxies.at(&component);
}

LoadedPlugin negotiate_isolated(const registry::PluginLibrary& library, IsolatedRecord& record) {
  const std::string context = plugin_context(library);
  const rapidjson::Document answer = record.remote->load(library);
  const auto bad_reply = [&](const char* what) {
    return Error::internal(context + ": the plugin's process answered the load with " + what);
  };
  const auto plugin = answer.FindMember("plugin");
  if (plugin == answer.MemberEnd() || !plugin->value.IsObject()) throw bad_reply("no plugin");
  LoadedPlugin loaded;
  loaded.name = string_member(plugin->value, "name");
  loaded.version = string_member(plugin->value, "version");
  loaded.abi_version = static_cast<uint32_t>(int_member(plugin->value, "abi_version"));
  loaded.library_path = library.library_path;
  loaded.manifest_path = library.manifest_path;
  const auto components = plugin->value.FindMember("components");
  if (components == plugin->value.MemberEnd() || !components->value.IsArray()) {
    throw bad_reply("no component list");
  }
  for (const auto& description : components->value.GetArray()) {
    if (!description.IsObject()) throw bad_reply("a component that is not an object");
    auto proxy = std::make_unique<ProxyComponent>();
    proxy->name = string_member(description, "name");
    proxy->description = string_member(description, "description");
    proxy->remote = record.remote.get();
    proxy->index = static_cast<int64_t>(record.components.size());
    proxy->component.struct_size = sizeof(proxy->component);
    proxy->component.kind = static_cast<uint32_t>(int_member(description, "kind"));
    proxy->component.name = proxy->name.c_str();
    proxy->component.description = proxy->description.c_str();
    if (component_kind_name(proxy->component.kind) == nullptr) {
      throw bad_reply("a component of unknown kind");
    }
    build_vtable(*proxy, description);
    loaded.components.push_back(&proxy->component);
    record.components.push_back(std::move(proxy));
  }
  return loaded;
}

}  // namespace

const LoadedPlugin& load_isolated(const registry::PluginLibrary& library,
                                  const IsolationOptions& options) {
  IsolatedTable& table = isolated_table();
  IsolatedRecord* record = nullptr;
  {
    const std::lock_guard<std::mutex> lock(table.mutex);
    std::unique_ptr<IsolatedRecord>& slot = table.records[library.library_path];
    if (slot != nullptr) {
      if (slot->error) throw *slot->error;
      return *slot->plugin;
    }
    slot = std::make_unique<IsolatedRecord>();
    record = slot.get();
    record->remote = std::make_unique<RemoteLibrary>(library.name, options);
    try {
      record->plugin = negotiate_isolated(library, *record);
    } catch (const Error& error) {
      record->error = error;
      throw;
    }
    for (const auto& proxy : record->components) {
      table.proxies.emplace(&proxy->component, proxy.get());
    }
  }
  return *record->plugin;
}

bool is_isolated(const sortie_component& component) {
  IsolatedTable& table = isolated_table();
  const std::lock_guard<std::mutex> lock(table.mutex);
  return table.proxies.count(&component) != 0;
}

sortie_status isolated_create(const sortie_component& component, sortie_str config, void** out,
                              const sortie_sink* err) {
  *out = nullptr;
  const ProxyComponent& proxy = proxy_of(component);
  RemoteLibrary::Reply reply = proxy.remote->call(WireObject()
                                                      .string("call", "create")
                                                      .number("component", proxy.index)
                                                      .string("config", view_of(config)),
                                                  "create", {});
  write_to(err, reply.err);
  if (reply.status == SORTIE_OK) {
    *out = new RemoteHandle{proxy.remote, int_member(reply.document, "handle")};
  }
  return reply.status;
}

sortie_status isolated_names(const sortie_component& component, const sortie_sink* out,
                             const sortie_sink* err) {
  const ProxyComponent& proxy = proxy_of(component);
  RemoteLibrary::Reply reply = proxy.remote->call(
      WireObject().string("call", "names").number("component", proxy.index), "names", {});
  write_to(out, reply.out);
  write_to(err, reply.err);
  return reply.status;
}

sortie_status isolated_lookup(const sortie_component& component, sortie_str name,
                              const sortie_sink* out, const sortie_sink* err) {
  const ProxyComponent& proxy = proxy_of(component);
  RemoteLibrary::Reply reply = proxy.remote->call(WireObject()
                                                      .string("call", "lookup")
                                                      .number("component", proxy.index)
                                                      .string("input", view_of(name)),
                                                  "lookup", {});
  write_to(out, reply.out);
  write_to(err, reply.err);
  return reply.status;
}

}  // namespace sortie::plugin_host::detail
