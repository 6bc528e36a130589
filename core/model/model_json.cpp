#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <sortie/core/error.hpp>
#include <sortie/core/model_json.hpp>

#include "appdef_from_sdk.hpp"

namespace sortie::core {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

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

// Runs an SDK payload reader; its errors name the field, `origin` adds the document.
template <typename Read>
auto with_origin(std::string_view origin, const Read& read) {
  try {
    return read();
  } catch (const Error& e) {
    throw Error(e.status(), std::string(origin) + ": " + e.what());
  }
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
  return with_origin(origin, [&] { return appdef_from_sdk(::sortie::read_appdef(text)); });
}

Resource resource_from_json(std::string_view text, std::string_view origin) {
  return with_origin(origin, [&] { return resource_from_sdk(::sortie::read_resource(text)); });
}

AppStatus status_from_json(std::string_view text, std::string_view origin) {
  return with_origin(origin, [&] { return read_status(text); });
}

}  // namespace sortie::core
