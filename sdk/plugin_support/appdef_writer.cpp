#include <algorithm>
#include <sortie/appdef.hpp>

#include "payload_writer.hpp"

namespace sortie {
namespace {

using payload::PayloadWriter;

// Pairs sorted by name, as a map writes them, so the text does not depend on insertion order.
template <typename Pairs>
std::vector<const typename Pairs::value_type*> by_name(const Pairs& pairs) {
  std::vector<const typename Pairs::value_type*> sorted;
  for (const auto& pair : pairs) sorted.push_back(&pair);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto* a, const auto* b) { return a->first < b->first; });
  return sorted;
}

// StringPairs or CountPairs as an object sorted by name.
template <typename Pairs>
void write_map(PayloadWriter& w, std::string_view key, const Pairs& pairs) {
  w.key(key);
  w.json().StartObject();
  for (const auto* pair : by_name(pairs)) w.member(pair->first, pair->second);
  w.json().EndObject();
}

void write_resource_object(PayloadWriter& w, const Resource& resource, bool with_schema) {
  w.json().StartObject();
  if (with_schema) w.member("schema", "sortie.resource/1");
  w.key("cpu");
  w.number(resource.cpu);
  w.member("gpu", resource.gpu);
  w.member("memMB", resource.mem_mb);
  write_map(w, "capabilities", resource.capabilities);
  write_map(w, "devices", resource.devices);
  w.json().EndObject();
}

void write_mount(PayloadWriter& w, const Mount& mount) {
  w.json().StartObject();
  w.member("type", mount_type_name(mount.type));
  w.member("src", mount.src);
  w.member("dst", mount.dst);
  if (mount.type == MountType::kDevice) {
    w.member("permissions", mount.permissions);
  } else {
    w.key("read_only");
    w.json().Bool(mount.read_only);
  }
  w.json().EndObject();
}

void write_role_object(PayloadWriter& w, const Role& role, bool with_schema) {
  w.json().StartObject();
  if (with_schema) w.member("schema", "sortie.role/1");
  w.member("name", role.name);
  w.member("image", role.image);
  w.key("base_image");
  if (role.base_image.empty()) {
    w.json().Null();
  } else {
    w.string(role.base_image);
  }
  w.member("entrypoint", role.entrypoint);
  w.key("args");
  w.json().StartArray();
  for (const std::string& arg : role.args) w.string(arg);
  w.json().EndArray();
  write_map(w, "env", role.env);
  w.member("num_replicas", role.num_replicas);
  w.member("min_replicas", role.min_replicas);
  w.member("max_retries", role.max_retries);
  w.member("retry_policy", retry_policy_name(role.retry_policy));
  w.key("resource");
  write_resource_object(w, role.resource, false);
  write_map(w, "port_map", role.port_map);
  w.key("mounts");
  w.json().StartArray();
  for (const Mount& mount : role.mounts) write_mount(w, mount);
  w.json().EndArray();
  w.raw_object("metadata", role.metadata);
  w.json().EndObject();
}

}  // namespace

std::string write_appdef(const AppDef& app) {
  PayloadWriter w;
  w.json().StartObject();
  w.member("schema", "sortie.appdef/1");
  w.member("name", app.name);
  write_map(w, "metadata", app.metadata);
  if (!app.output_dir.empty()) w.member("output_dir", app.output_dir);
  w.key("roles");
  w.json().StartArray();
  for (const Role& role : app.roles) write_role_object(w, role, false);
  w.json().EndArray();
  w.json().EndObject();
  return w.text();
}

std::string write_role(const Role& role) {
  PayloadWriter w;
  write_role_object(w, role, true);
  return w.text();
}

std::string write_resource(const Resource& resource) {
  PayloadWriter w;
  write_resource_object(w, resource, true);
  return w.text();
}

}  // namespace sortie
