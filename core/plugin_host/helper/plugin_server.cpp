// File: core/plugin_host/helper/plugin_server.cpp
#include "plugin_server.hpp"

#include <rapidjson/document.h>

#include <mutex>
#include <sortie/model/error.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plugin_calls.hpp"
#include "plugin_loader.hpp"
#include "plugin_wire.hpp"

namespace sortie::plugin_host::detail {
namespace {

// Diagnostics the plugin logged (from any thread) since the last reply, which carries them.
struct PendingDiagnostics {
  std::mutex mutex;
  std::vector<std::string> items;
};

PendingDiagnostics& pending_diagnostics() {
  static PendingDiagnostics* pending = new PendingDiagnostics;  // plugins may log until exit
  return *pending;
}

void queue_diagnostic(int32_t level, const std::string& /*plugin_name*/, std::string_view message) {
  PendingDiagnostics& pending = pending_diagnostics();
  const std::lock_guard<std::mutex> lock(pending.mutex);
  pending.items.push_back(WireObject().number("level", level).string("message", message).str());
}

std::string take_diagnostics() {
  PendingDiagnostics& pending = pending_diagnostics();
  const std::lock_guard<std::mutex> lock(pending.mutex);
  std::string json = wire_array(pending.items);
  pending.items.clear();
  return json;
}

[[noreturn]] void protocol_error(const std::string& what) {
  throw Error::internal("sortie-plugin-host: " + what);
}

const rapidjson::Value& member(const rapidjson::Value& object, const char* name) {
  if (!object.IsObject()) protocol_error(std::string("'") + name + "' is sought in a non-object");
  const auto found = object.FindMember(name);
  if (found == object.MemberEnd()) protocol_error(std::string("the request lacks '") + name + "'");
  return found->value;
}

std::string_view text(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value& value = member(object, name);
  if (!value.IsString()) protocol_error(std::string("'") + name + "' is not a string");
  return std::string_view(value.GetString(), value.GetStringLength());
}

int64_t number(const rapidjson::Value& object, const char* name) {
  const rapidjson::Value& value = member(object, name);
  if (!value.IsInt64()) protocol_error(std::string("'") + name + "' is not an integer");
  return value.GetInt64();
}

registry::PluginLibrary library_of(const rapidjson::Value& description) {
  registry::PluginLibrary library;
  library.name = text(description, "name");
  library.version = text(description, "version");
  library.library_path = text(description, "library");
  library.manifest_path = text(description, "manifest");
  library.abi_min = static_cast<uint32_t>(number(description, "abi_min"));
  library.abi_max = static_cast<uint32_t>(number(description, "abi_max"));
  const rapidjson::Value& provides = member(description, "provides");
  if (!provides.IsArray()) protocol_error("'provides' is not an array");
  for (const auto& entry : provides.GetArray()) {
    if (!entry.IsObject()) protocol_error("an element of 'provides' is not an object");
    const auto group = registry::group_from_string(text(entry, "group"));
    if (!group) protocol_error("unknown group in 'provides'");
    library.provides.emplace_back(*group, std::string(text(entry, "name")));
  }
  return library;
}

// The optional calls a scheduler implements, as the host names them.
std::string optional_calls(const sortie_component& component) {
  if (component.kind != SORTIE_KIND_SCHEDULER) return "[]";
  using V = sortie_scheduler_vtable;
  const auto* v = static_cast<const V*>(component.vtable);
  std::vector<std::string> calls;
  if (SORTIE_HAS_MEMBER(v, V, list) && v->list != nullptr) calls.emplace_back("\"list\"");
  if (SORTIE_HAS_MEMBER(v, V, wait) && v->wait != nullptr) calls.emplace_back("\"wait\"");
  // Negotiation checked that log_open, log_next and log_close come together.
  if (SORTIE_HAS_MEMBER(v, V, log_close) && v->log_open != nullptr) calls.emplace_back("\"log\"");
  if (SORTIE_HAS_MEMBER(v, V, schedule_batch) && v->schedule_batch != nullptr) {
    calls.emplace_back("\"schedule_batch\"");
  }
  if (SORTIE_HAS_MEMBER(v, V, cancel_batch) && v->cancel_batch != nullptr) {
    calls.emplace_back("\"cancel_batch\"");
  }
  return wire_array(calls);
}

struct LineCollector {
  std::vector<std::string> lines;
  static void add(void* ctx, const sortie_log_line* line) {
    if (line == nullptr) return;
    using L = sortie_log_line;
    WireObject item;
    if (SORTIE_HAS_MEMBER(line, L, stream)) item.number("stream", line->stream);
    if (SORTIE_HAS_MEMBER(line, L, role) && line->role.ptr != nullptr) {
      item.string("role", std::string_view(line->role.ptr, line->role.len));
    }
    if (SORTIE_HAS_MEMBER(line, L, replica_id)) item.number("replica", line->replica_id);
    if (SORTIE_HAS_MEMBER(line, L, timestamp_ns)) item.number("timestamp_ns", line->timestamp_ns);
    if (SORTIE_HAS_MEMBER(line, L, data) && line->data.ptr != nullptr) {
      item.string("data", std::string_view(line->data.ptr, line->data.len));
    }
    static_cast<LineCollector*>(ctx)->lines.push_back(item.str());
  }
};

}  // namespace

PluginServer::PluginServer() { forward_diagnostics(&queue_diagnostic); }

std::string PluginServer::handle(const std::string& request_text) {
  WireObject reply;
  sortie_status status = SORTIE_OK;
  // The host checks each answer against its own limit; this one only bounds the helper's memory.
  StringSink out(limits::kListAnswerBytes);
  StringSink err;
  std::string failure;
  try {
    rapidjson::Document request;
    request.Parse(request_text.c_str(), request_text.size());
    if (request.HasParseError() || !request.IsObject()) protocol_error("a request is not JSON");
    const std::string call(text(request, "call"));

    const auto instance = [&](uint32_t kind) -> Instance& {
      const auto found = instances_.find(number(request, "handle"));
      if (found == instances_.end() || found->second.kind != kind) {
        protocol_error("'" + call + "' names no live " + component_kind_name(kind));
      }
      return found->second;
    };
    const auto scheduler = [&]() -> std::pair<const sortie_scheduler_vtable*, sortie_scheduler*> {
      Instance& found = instance(SORTIE_KIND_SCHEDULER);
      return {static_cast<const sortie_scheduler_vtable*>(found.vtable),
              static_cast<sortie_scheduler*>(found.self)};
    };
    const auto component = [&]() -> const sortie_component& {
      const int64_t index = number(request, "component");
      if (plugin_ == nullptr || index < 0 ||
          static_cast<size_t>(index) >= plugin_->components.size()) {
        protocol_error("'" + call + "' names no component");
      }
      return *plugin_->components[static_cast<size_t>(index)];
    };
    const auto input = [&] { return as_str(text(request, "input")); };
    // A batch call's strings (schedule_batch's requests, cancel_batch's app ids), in order.
    const auto inputs = [&] {
      const rapidjson::Value& array = member(request, "inputs");
      if (!array.IsArray()) protocol_error("'inputs' is not an array");
      std::vector<sortie_str> strings;
      for (const auto& item : array.GetArray()) {
        if (!item.IsString()) protocol_error("an element of 'inputs' is not a string");
        strings.push_back(sortie_str{item.GetString(), item.GetStringLength()});
      }
      return strings;
    };

    if (call == "load") {
      if (plugin_ != nullptr) protocol_error("a helper loads one library only");
      const auto wire = request.FindMember("wire");
      const int64_t host_wire = wire != request.MemberEnd() && wire->value.IsInt64()
                                    ? wire->value.GetInt64()
                                    : 0;  // a host from before the version
      if (host_wire != kWireProtocolVersion) {
        throw Error::failed_precondition("sortie-plugin-host speaks wire protocol " +
                                         std::to_string(kWireProtocolVersion) + ", the host " +
                                         (host_wire == 0 ? "none" : std::to_string(host_wire)) +
                                         " (ISO-3): use the helper installed with this sortie");
      }
      plugin_ = &load_plugin(library_of(member(request, "library")));
      std::vector<std::string> components;
      for (const sortie_component* c : plugin_->components) {
        components.push_back(WireObject()
                                 .number("kind", c->kind)
                                 .string("name", c->name)
                                 .string("description", c->description ? c->description : "")
                                 .raw("calls", optional_calls(*c))
                                 .str());
      }
      reply.number("wire", kWireProtocolVersion);
      reply.raw("plugin", WireObject()
                              .string("name", plugin_->name)
                              .string("version", plugin_->version)
                              .number("abi_version", plugin_->abi_version)
                              .raw("components", wire_array(components))
                              .str());
    } else if (call == "create") {
      const sortie_component& c = component();
      void* self = nullptr;
      const sortie_str config = as_str(text(request, "config"));
      switch (c.kind) {
        case SORTIE_KIND_SCHEDULER:
          status = static_cast<const sortie_scheduler_vtable*>(c.vtable)->create(
              config, reinterpret_cast<sortie_scheduler**>(&self), err.get());
          break;
        case SORTIE_KIND_PACKAGER:
          status = static_cast<const sortie_packager_vtable*>(c.vtable)->create(
              config, reinterpret_cast<sortie_packager**>(&self), err.get());
          break;
        case SORTIE_KIND_IMAGE_PROVIDER:
          status = static_cast<const sortie_image_provider_vtable*>(c.vtable)->create(
              config, reinterpret_cast<sortie_image_provider**>(&self), err.get());
          break;
        default:
          protocol_error("a named-resource registry has no instances");
      }
      // No handle member for a NULL handle: the host reports that bug as it does in process.
      if (status == SORTIE_OK && self != nullptr) {
        instances_[next_id_] = Instance{c.kind, c.vtable, self};
        reply.number("handle", next_id_++);
      }
    } else if (call == "destroy") {
      const auto found = instances_.find(number(request, "handle"));
      if (found == instances_.end()) protocol_error("'destroy' names no live instance");
      const Instance target = found->second;
      instances_.erase(found);
      switch (target.kind) {
        case SORTIE_KIND_SCHEDULER:
          static_cast<const sortie_scheduler_vtable*>(target.vtable)
              ->destroy(static_cast<sortie_scheduler*>(target.self));
          break;
        case SORTIE_KIND_PACKAGER:
          static_cast<const sortie_packager_vtable*>(target.vtable)
              ->destroy(static_cast<sortie_packager*>(target.self));
          break;
        case SORTIE_KIND_IMAGE_PROVIDER:
          static_cast<const sortie_image_provider_vtable*>(target.vtable)
              ->destroy(static_cast<sortie_image_provider*>(target.self));
          break;
      }
    } else if (call == "run_options") {
      const auto [v, self] = scheduler();
      status = v->run_options(self, out.get(), err.get());
    } else if (call == "dryrun") {
      const auto [v, self] = scheduler();
      status = v->dryrun(self, input(), out.get(), err.get());
    } else if (call == "schedule") {
      const auto [v, self] = scheduler();
      status = v->schedule(self, input(), out.get(), err.get());
    } else if (call == "schedule_batch") {
      const auto [v, self] = scheduler();
      if (!SORTIE_HAS_MEMBER(v, sortie_scheduler_vtable, schedule_batch) ||
          v->schedule_batch == nullptr) {
        protocol_error("'schedule_batch' reached a scheduler without it");
      }
      const std::vector<sortie_str> requests = inputs();
      status = v->schedule_batch(self, requests.data(), requests.size(), out.get(), err.get());
    } else if (call == "cancel_batch") {
      const auto [v, self] = scheduler();
      if (!SORTIE_HAS_MEMBER(v, sortie_scheduler_vtable, cancel_batch) ||
          v->cancel_batch == nullptr) {
        protocol_error("'cancel_batch' reached a scheduler without it");
      }
      const std::vector<sortie_str> app_ids = inputs();
      status = v->cancel_batch(self, app_ids.data(), app_ids.size(), err.get());
    } else if (call == "describe") {
      const auto [v, self] = scheduler();
      status = v->describe(self, input(), out.get(), err.get());
    } else if (call == "list") {
      const auto [v, self] = scheduler();
      status = v->list(self, input(), out.get(), err.get());
    } else if (call == "cancel") {
      const auto [v, self] = scheduler();
      status = v->cancel(self, input(), err.get());
    } else if (call == "wait") {
      const auto [v, self] = scheduler();
      status = v->wait(self, input(), as_str(text(request, "known_state")),
                       number(request, "timeout_ms"), out.get(), err.get());
    } else if (call == "log_open") {
      const auto [v, self] = scheduler();
      sortie_log_stream* stream = nullptr;
      status = v->log_open(self, input(), as_str(text(request, "request")), &stream, err.get());
      if (status == SORTIE_OK && stream != nullptr) {
        streams_[next_id_] = Stream{v, stream};
        reply.number("stream", next_id_++);
      }
    } else if (call == "log_next" || call == "log_close") {
      const auto found = streams_.find(number(request, "handle"));
      if (found == streams_.end()) protocol_error("'" + call + "' names no open log stream");
      const Stream stream = found->second;
      if (call == "log_close") {
        streams_.erase(found);
        stream.vtable->log_close(stream.stream);
      } else {
        LineCollector collector;
        const sortie_log_sink sink{&collector, &LineCollector::add};
        int32_t eof = 0;
        status = stream.vtable->log_next(stream.stream, number(request, "timeout_ms"), &sink, &eof,
                                         err.get());
        reply.raw("lines", wire_array(collector.lines)).number("eof", eof);
      }
    } else if (call == "fetch") {
      Instance& found = instance(SORTIE_KIND_IMAGE_PROVIDER);
      status = static_cast<const sortie_image_provider_vtable*>(found.vtable)
                   ->fetch(static_cast<sortie_image_provider*>(found.self), input(), out.get(),
                           err.get());
    } else if (call == "package") {
      Instance& found = instance(SORTIE_KIND_PACKAGER);
      status =
          static_cast<const sortie_packager_vtable*>(found.vtable)
              ->package(static_cast<sortie_packager*>(found.self), input(), out.get(), err.get());
    } else if (call == "names" || call == "lookup") {
      const sortie_component& c = component();
      if (c.kind != SORTIE_KIND_NAMED_RESOURCES) protocol_error("not a named-resource registry");
      const auto* v = static_cast<const sortie_named_resources_vtable*>(c.vtable);
      status = call == "names" ? v->names(out.get(), err.get())
                               : v->lookup(input(), out.get(), err.get());
    } else {
      protocol_error("unknown call '" + call + "'");
    }
  } catch (const Error& e) {
    status = e.status();
    failure = e.what();
  } catch (const std::exception& e) {
    status = SORTIE_INTERNAL;
    failure = std::string("it let a C++ exception cross the plugin boundary (ABI-6): ") + e.what();
  } catch (...) {
    status = SORTIE_INTERNAL;
    failure = "it let an exception of unknown type cross the plugin boundary (ABI-6)";
  }
  reply.number("status", status);
  if (!out.text().empty()) reply.string("out", out.text());
  if (!failure.empty() || !err.text().empty()) {
    reply.string("err", failure.empty() ? err.text() : failure);
  }
  return reply.raw("diagnostics", take_diagnostics()).str();
}

}  // namespace sortie::plugin_host::detail
