#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>

#include "json_values.hpp"

namespace sortie::core {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
using json::Value;
using json::Where;

void write_string(Writer& w, std::string_view text) {
  w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void write_member(Writer& w, std::string_view key, std::string_view text) {
  write_string(w, key);
  write_string(w, text);
}

void write_string_map(Writer& w, const std::map<std::string, std::string>& items) {
  w.StartObject();
  for (const auto& [key, value] : items) write_member(w, key, value);
  w.EndObject();
}

void write_int_map(Writer& w, const std::map<std::string, int>& items) {
  w.StartObject();
  for (const auto& [key, value] : items) {
    write_string(w, key);
    w.Int(value);
  }
  w.EndObject();
}

template <typename T>
void write_optional_int(Writer& w, std::string_view key, const std::optional<T>& value) {
  write_string(w, key);
  if (value) {
    w.Int64(*value);
  } else {
    w.Null();
  }
}

void write_resource(Writer& w, const Resource& res, bool with_schema) {
  w.StartObject();
  if (with_schema) write_member(w, "schema", "sortie.resource/1");
  write_string(w, "cpu");
  // Whole CPU counts stay integers ("cpu": 2), as people write them.
  if (res.cpu == std::floor(res.cpu) && std::abs(res.cpu) < 1e15) {
    w.Int64(static_cast<int64_t>(res.cpu));
  } else {
    w.Double(res.cpu);
  }
  write_string(w, "gpu");
  w.Int(res.gpu);
  write_string(w, "memMB");
  w.Int64(res.mem_mb);
  write_string(w, "capabilities");
  write_string_map(w, res.capabilities);
  write_string(w, "devices");
  write_int_map(w, res.devices);
  w.EndObject();
}

void write_mount(Writer& w, const Mount& mount) {
  w.StartObject();
  write_member(w, "type", to_string(mount.type));
  write_member(w, "src", mount.src);
  write_member(w, "dst", mount.dst);
  if (mount.type == MountType::kDevice) {
    write_member(w, "permissions", mount.permissions);
  } else {
    write_string(w, "read_only");
    w.Bool(mount.read_only);
  }
  w.EndObject();
}

void write_role(Writer& w, const Role& role, bool with_schema) {
  w.StartObject();
  if (with_schema) write_member(w, "schema", "sortie.role/1");
  write_member(w, "name", role.name);
  write_member(w, "image", role.image);
  write_string(w, "base_image");
  if (role.base_image) {
    write_string(w, *role.base_image);
  } else {
    w.Null();
  }
  write_member(w, "entrypoint", role.entrypoint);
  write_string(w, "args");
  w.StartArray();
  for (const auto& arg : role.args) write_string(w, arg);
  w.EndArray();
  write_string(w, "env");
  write_string_map(w, role.env);
  write_string(w, "num_replicas");
  w.Int(role.num_replicas);
  write_optional_int(w, "min_replicas", role.min_replicas);
  write_string(w, "max_retries");
  w.Int(role.max_retries);
  write_member(w, "retry_policy", to_string(role.retry_policy));
  write_string(w, "resource");
  write_resource(w, role.resource, false);
  write_string(w, "port_map");
  write_int_map(w, role.port_map);
  write_string(w, "mounts");
  w.StartArray();
  for (const auto& mount : role.mounts) write_mount(w, mount);
  w.EndArray();
  write_string(w, "metadata");
  const std::string& metadata = role.metadata_json.empty() ? "{}" : role.metadata_json;
  w.RawValue(metadata.data(), metadata.size(), rapidjson::kObjectType);
  w.EndObject();
}

std::string text_of(const rapidjson::StringBuffer& buffer) {
  return {buffer.GetString(), buffer.GetSize()};
}

// ---- readers ----

Resource read_resource(const Value& value, const Where& where) {
  json::as_object(value, where);
  Resource res;
  if (const Value* cpu = json::find(value, "cpu")) {
    res.cpu = json::as_number(*cpu, where / "cpu");
    if (res.cpu < 0 && res.cpu != -1) json::fail_expected(where / "cpu", "a number >= 0", *cpu);
  }
  if (const Value* gpu = json::find(value, "gpu")) res.gpu = json::as_int(*gpu, where / "gpu", -1);
  if (const Value* mem = json::find(value, "memMB")) {
    res.mem_mb = json::as_int64(*mem, where / "memMB", -1);
  }
  if (const Value* caps = json::find(value, "capabilities")) {
    res.capabilities = json::as_string_map(*caps, where / "capabilities");
  }
  if (const Value* devices = json::find(value, "devices")) {
    res.devices = json::as_int_map(*devices, where / "devices", 0);
  }
  return res;
}

Mount read_mount(const Value& value, const Where& where) {
  json::as_object(value, where);
  Mount mount;
  const Value* type = json::find(value, "type");
  if (type == nullptr)
    throw Error::invalid_argument(where.prefix() + "type is required (bind, volume or device)");
  const std::string type_name = json::as_string(*type, where / "type");
  if (type_name == "bind") {
    mount.type = MountType::kBind;
  } else if (type_name == "volume") {
    mount.type = MountType::kVolume;
  } else if (type_name == "device") {
    mount.type = MountType::kDevice;
  } else {
    json::fail_expected(where / "type", "\"bind\", \"volume\" or \"device\"", *type);
  }
  if (const Value* src = json::find(value, "src")) mount.src = json::as_string(*src, where / "src");
  if (const Value* dst = json::find(value, "dst")) mount.dst = json::as_string(*dst, where / "dst");
  if (const Value* ro = json::find(value, "read_only")) {
    mount.read_only = json::as_bool(*ro, where / "read_only");
  }
  if (const Value* perm = json::find(value, "permissions")) {
    mount.permissions = json::as_string(*perm, where / "permissions");
  }
  // A device appears at its own path unless told otherwise (TorchX DeviceMount).
  if (mount.type == MountType::kDevice && mount.dst.empty()) mount.dst = mount.src;
  return mount;
}

std::string required_string(const Value& object, const char* name, const Where& where) {
  const Value* value = json::find(object, name);
  if (value == nullptr) throw Error::invalid_argument(where.prefix() + name + " is required");
  return json::as_string(*value, where / name);
}

Role read_role(const Value& value, const Where& where) {
  json::as_object(value, where);
  json::check_schema(value, where, "sortie.role/1");
  Role role;
  role.name = required_string(value, "name", where);
  if (const Value* v = json::find(value, "image"))
    role.image = json::as_string(*v, where / "image");
  // An image may run its own entrypoint (docs/payloads.md P-2); a process needs one.
  if (role.image.empty() || json::find(value, "entrypoint") != nullptr) {
    role.entrypoint = required_string(value, "entrypoint", where);
  }
  if (const Value* v = json::find(value, "base_image")) {
    role.base_image = json::as_string(*v, where / "base_image");
  }
  if (const Value* v = json::find(value, "args"))
    role.args = json::as_string_list(*v, where / "args");
  if (const Value* v = json::find(value, "env")) role.env = json::as_string_map(*v, where / "env");
  if (const Value* v = json::find(value, "num_replicas")) {
    role.num_replicas = json::as_int(*v, where / "num_replicas", 1);
  }
  if (const Value* v = json::find(value, "min_replicas")) {
    role.min_replicas = json::as_int(*v, where / "min_replicas", 1);
  }
  if (const Value* v = json::find(value, "max_retries")) {
    role.max_retries = json::as_int(*v, where / "max_retries", 0);
  }
  if (const Value* v = json::find(value, "retry_policy")) {
    const auto policy = retry_policy_from_string(json::as_string(*v, where / "retry_policy"));
    if (!policy) {
      json::fail_expected(where / "retry_policy", "\"REPLICA\", \"APPLICATION\" or \"ROLE\"", *v);
    }
    role.retry_policy = *policy;
  }
  if (const Value* v = json::find(value, "resource")) {
    role.resource = read_resource(*v, where / "resource");
  }
  if (const Value* v = json::find(value, "port_map")) {
    role.port_map = json::as_int_map(*v, where / "port_map", 0);
  }
  if (const Value* v = json::find(value, "mounts")) {
    json::as_array(*v, where / "mounts");
    for (rapidjson::SizeType i = 0; i < v->Size(); ++i) {
      role.mounts.push_back(read_mount((*v)[i], (where / "mounts")[i]));
    }
  }
  if (const Value* v = json::find(value, "metadata")) {
    role.metadata_json = json::compact(json::as_object(*v, where / "metadata"));
  }
  return role;
}

}  // namespace

std::string to_json(const AppDef& app) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  write_member(w, "schema", "sortie.appdef/1");
  write_member(w, "name", app.name);
  write_string(w, "metadata");
  write_string_map(w, app.metadata);
  write_string(w, "roles");
  w.StartArray();
  for (const auto& role : app.roles) write_role(w, role, false);
  w.EndArray();
  w.EndObject();
  return text_of(buffer);
}

std::string to_json(const Role& role) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  write_role(w, role, true);
  return text_of(buffer);
}

std::string to_json(const Resource& res) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  write_resource(w, res, true);
  return text_of(buffer);
}

std::string to_json(const AppStatus& status) { return write_status(status); }

AppDef appdef_from_json(std::string_view text, std::string_view origin) {
  const auto document = json::parse(text, origin);
  const Where where{std::string(origin), ""};
  json::as_object(document, where);
  json::check_schema(document, where, "sortie.appdef/1");
  AppDef app;
  app.name = required_string(document, "name", where);
  if (const Value* v = json::find(document, "metadata")) {
    app.metadata = json::as_string_map(*v, where / "metadata");
  }
  const Value* roles = json::find(document, "roles");
  if (roles == nullptr) throw Error::invalid_argument(where.prefix() + "roles is required");
  json::as_array(*roles, where / "roles");
  for (rapidjson::SizeType i = 0; i < roles->Size(); ++i) {
    app.roles.push_back(read_role((*roles)[i], (where / "roles")[i]));
  }
  return app;
}

Resource resource_from_json(std::string_view text, std::string_view origin) {
  const auto document = json::parse(text, origin);
  const Where where{std::string(origin), ""};
  json::as_object(document, where);
  json::check_schema(document, where, "sortie.resource/1");
  return read_resource(document, where);
}

AppStatus status_from_json(std::string_view text, std::string_view origin) {
  try {
    return read_status(text);
  } catch (const Error& e) {
    throw Error(e.status(), std::string(origin) + ": " + e.what());
  }
}

}  // namespace sortie::core
