#include "appdef_from_sdk.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace sortie::core {
namespace {

// The SDK's reader bounds every count it hands over (num_replicas, retries, GPUs, devices,
// ports) below 2^31, so core's int fields hold them.
int count(int64_t value) { return static_cast<int>(value); }

std::map<std::string, std::string> string_map(const ::sortie::StringPairs& pairs) {
  return {pairs.begin(), pairs.end()};
}

std::map<std::string, int> count_map(const ::sortie::CountPairs& pairs) {
  std::map<std::string, int> counts;
  for (const auto& [name, value] : pairs) counts[name] = count(value);
  return counts;
}

// Role metadata keeps any JSON value; the SDK hands each one over as JSON text.
std::string metadata_object(const ::sortie::StringPairs& pairs) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  for (const auto& [key, json] : pairs) {
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    writer.RawValue(json.data(), json.size(), rapidjson::kObjectType);
  }
  writer.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

Role role_from_sdk(const ::sortie::Role& sdk) {
  Role role;
  role.name = sdk.name;
  role.image = sdk.image;
  if (!sdk.base_image.empty()) role.base_image = sdk.base_image;
  role.entrypoint = sdk.entrypoint;
  role.args = sdk.args;
  role.env = string_map(sdk.env);
  role.num_replicas = count(sdk.num_replicas);
  if (sdk.min_replicas) role.min_replicas = count(*sdk.min_replicas);
  role.max_retries = count(sdk.max_retries);
  role.retry_policy = sdk.retry_policy;
  role.resource = resource_from_sdk(sdk.resource);
  role.port_map = count_map(sdk.port_map);
  for (const ::sortie::Mount& mount : sdk.mounts) {
    role.mounts.push_back(
        Mount{mount.type, mount.src, mount.dst, mount.read_only, mount.permissions});
  }
  role.metadata_json = metadata_object(sdk.metadata);
  return role;
}

}  // namespace

Resource resource_from_sdk(const ::sortie::Resource& resource) {
  return Resource{resource.cpu, count(resource.gpu), resource.mem_mb,
                  string_map(resource.capabilities), count_map(resource.devices)};
}

AppDef appdef_from_sdk(const ::sortie::AppDef& app) {
  AppDef def;
  def.name = app.name;
  def.metadata = string_map(app.metadata);
  for (const ::sortie::Role& role : app.roles) def.roles.push_back(role_from_sdk(role));
  return def;
}

}  // namespace sortie::core
