#include "app_spec.hpp"

#include <sortie/plugin.hpp>

#include "dns_names.hpp"

namespace sortie::kubernetes {
namespace {

[[noreturn]] void refuse(const std::string& what, const std::string& message) {
  throw Error(Code::kInvalidArgument, what + ": " + message);
}

std::vector<std::string> string_list(const Json& object, const char* key, const std::string& what) {
  std::vector<std::string> out;
  if (const Json* list = array_member(object, key, what)) {
    for (const Json& item : list->GetArray()) {
      if (!item.IsString()) refuse(what, std::string("field '") + key + "' must list strings");
      out.emplace_back(item.GetString(), item.GetStringLength());
    }
  }
  return out;
}

RetryPolicy parse_retry_policy(const std::string& text, const std::string& what) {
  if (text.empty() || text == "APPLICATION") return RetryPolicy::kApplication;
  if (text == "ROLE") return RetryPolicy::kRole;
  if (text == "REPLICA") return RetryPolicy::kReplica;
  refuse(what, "retry_policy '" + text + "': expected APPLICATION, ROLE or REPLICA");
}

void read_resource(const Json& resource, RoleSpec& role, const std::string& what) {
  const std::string where = what + " resource";
  role.cpu = number_member(resource, "cpu", where, -1);
  role.gpu = int_member(resource, "gpu", where, -1);
  role.mem_mb = int_member(resource, "memMB", where, -1);
  if (const Json* capabilities = object_member(resource, "capabilities", where)) {
    for (const auto& entry : capabilities->GetObject()) {
      const std::string key(entry.name.GetString(), entry.name.GetStringLength());
      if (!entry.value.IsString()) {
        refuse(where, "capability '" + key + "' must be a string (it becomes a node selector)");
      }
      const std::string value(entry.value.GetString(), entry.value.GetStringLength());
      if (!is_label_value(value)) {
        refuse(where, "capability '" + key + "' = '" + value +
                          "' cannot be a node selector value (a label value: at most 63 of "
                          "A-Z, a-z, 0-9, '-', '_', '.')");
      }
      role.capabilities.emplace_back(key, value);
    }
  }
  if (const Json* devices = object_member(resource, "devices", where)) {
    for (const auto& entry : devices->GetObject()) {
      const std::string key(entry.name.GetString(), entry.name.GetStringLength());
      if (!entry.value.IsInt64() || entry.value.GetInt64() < 0) {
        refuse(where, "device '" + key + "' must be a count >= 0");
      }
      if (entry.value.GetInt64() > 0) role.devices.emplace_back(key, entry.value.GetInt64());
    }
  }
}

MountSpec read_mount(const Json& mount, const std::string& what) {
  if (!mount.IsObject()) refuse(what, "each of 'mounts' must be an object");
  MountSpec spec;
  const std::string type = string_member(mount, "type", what);
  if (type == "bind") {
    spec.type = MountSpec::Type::kBind;
  } else if (type == "volume") {
    spec.type = MountSpec::Type::kVolume;
  } else if (type == "device") {
    spec.type = MountSpec::Type::kDevice;
  } else {
    refuse(what, "mount type '" + type + "': expected bind, volume or device");
  }
  spec.src = string_member(mount, "src", what);
  spec.dst =
      string_member(mount, "dst", what, spec.type == MountSpec::Type::kDevice ? spec.src : "");
  spec.read_only = bool_member(mount, "read_only", what, false);
  if (spec.src.empty()) refuse(what, type + " mount needs 'src'");
  if (spec.dst.empty() || spec.dst[0] != '/') {
    refuse(what, type + " mount of '" + spec.src + "' needs an absolute 'dst' path");
  }
  if (spec.type != MountSpec::Type::kVolume && spec.src[0] != '/') {
    refuse(what, type + " mount 'src' must be an absolute host path, got '" + spec.src + "'");
  }
  return spec;
}

RoleSpec read_role(const Json& value) {
  RoleSpec role;
  role.name = string_member(value, "name", "app role");
  const std::string what = "role '" + role.name + "'";
  if (role.name.empty()) refuse("app role", "field 'name' is required");
  role.image = string_member(value, "image", what);
  if (role.image.empty()) {
    refuse(what,
           "field 'image' must name a container image (e.g. ghcr.io/org/trainer:1.0); the "
           "kubernetes scheduler runs containers");
  }
  if (!string_member(value, "base_image", what).empty()) {
    refuse(what,
           "field 'base_image' is not supported by the kubernetes scheduler (images are "
           "used as they are); remove it");
  }
  role.entrypoint = string_member(value, "entrypoint", what);
  if (role.entrypoint.empty()) refuse(what, "field 'entrypoint' is required");
  role.args = string_list(value, "args", what);
  if (const Json* env = object_member(value, "env", what)) {
    for (const auto& entry : env->GetObject()) {
      if (!entry.value.IsString()) refuse(what, "field 'env' values must be strings");
      role.env.emplace_back(std::string(entry.name.GetString(), entry.name.GetStringLength()),
                            std::string(entry.value.GetString(), entry.value.GetStringLength()));
    }
  }
  role.num_replicas = int_member(value, "num_replicas", what, 1);
  if (role.num_replicas < 1) refuse(what, "field 'num_replicas' must be at least 1");
  if (const Json* min = find_member(value, "min_replicas"); min != nullptr) {
    role.min_replicas = int_member(value, "min_replicas", what, role.num_replicas);
    if (*role.min_replicas < 1 || *role.min_replicas > role.num_replicas) {
      refuse(what, "field 'min_replicas' must be between 1 and num_replicas");
    }
  }
  role.max_retries = int_member(value, "max_retries", what, 0);
  if (role.max_retries < 0) refuse(what, "field 'max_retries' must be >= 0");
  role.retry_policy = parse_retry_policy(string_member(value, "retry_policy", what), what);
  if (const Json* resource = object_member(value, "resource", what)) {
    read_resource(*resource, role, what);
  }
  if (const Json* ports = object_member(value, "port_map", what)) {
    for (const auto& entry : ports->GetObject()) {
      const std::string name(entry.name.GetString(), entry.name.GetStringLength());
      if (!is_port_name(name)) {
        refuse(what, "port_map name '" + name +
                         "' is not a valid Kubernetes port name (at most 15 of a-z, 0-9 and '-', "
                         "with a letter); rename it, e.g. 'tb'");
      }
      if (!entry.value.IsInt64() || entry.value.GetInt64() < 1 || entry.value.GetInt64() > 65535) {
        refuse(what, "port_map '" + name + "' must be a port number between 1 and 65535");
      }
      role.ports.emplace_back(name, entry.value.GetInt64());
    }
  }
  if (const Json* mounts = array_member(value, "mounts", what)) {
    for (const Json& mount : mounts->GetArray()) role.mounts.push_back(read_mount(mount, what));
  }
  if (const Json* metadata = object_member(value, "metadata", what)) {
    for (const auto& entry : metadata->GetObject()) {
      const std::string_view key(entry.name.GetString(), entry.name.GetStringLength());
      if (key.rfind("kubernetes.", 0) == 0) {
        refuse(what, "metadata key '" + std::string(key) +
                         "' is not an option the kubernetes scheduler knows (it reads none from "
                         "metadata; see `sortie runopts kubernetes`); remove it");
      }
    }
  }
  return role;
}

}  // namespace

const char* retry_policy_name(RetryPolicy policy) {
  switch (policy) {
    case RetryPolicy::kRole:
      return "ROLE";
    case RetryPolicy::kReplica:
      return "REPLICA";
    case RetryPolicy::kApplication:
      break;
  }
  return "APPLICATION";
}

AppSpec read_app_spec(const Json& app) {
  AppSpec spec;
  spec.name = string_member(app, "name", "app");
  const Json* roles = array_member(app, "roles", "app");
  if (roles == nullptr || roles->Empty()) {
    throw Error(Code::kInvalidArgument, "app '" + spec.name + "' has no roles");
  }
  for (const Json& role : roles->GetArray()) {
    spec.roles.push_back(read_role(role));
    for (size_t i = 0; i + 1 < spec.roles.size(); ++i) {
      if (spec.roles[i].name == spec.roles.back().name) {
        throw Error(Code::kInvalidArgument,
                    "role name '" + spec.roles.back().name + "' is used twice");
      }
    }
  }
  return spec;
}

}  // namespace sortie::kubernetes
