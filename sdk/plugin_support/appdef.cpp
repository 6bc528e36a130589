#include <sortie/appdef.hpp>

#include "appdef_json.hpp"

namespace sortie {
namespace payload {
namespace {

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

RetryPolicy read_retry_policy(const Json& role, const std::string& path) {
  const std::string name = read_string(role, "retry_policy", path, "APPLICATION");
  const std::optional<RetryPolicy> policy = retry_policy_from_name(name);
  if (!policy) {
    fail(member_path(path, "retry_policy"),
         "expected \"REPLICA\", \"APPLICATION\" or \"ROLE\", got " + quoted(name));
  }
  return *policy;
}

Resource read_resource(const Json& role, const std::string& role_path) {
  Resource resource;
  const Json* value = read_object(role, "resource", role_path);
  if (value == nullptr) return resource;
  const std::string path = member_path(role_path, "resource");
  resource.cpu = read_number(*value, "cpu", path, -1);
  resource.gpu = read_int(*value, "gpu", path, -1);
  resource.mem_mb = read_int(*value, "memMB", path, -1);
  resource.capabilities = read_string_map(*value, "capabilities", path);
  if (const Json* devices = read_object(*value, "devices", path)) {
    for (const auto& entry : devices->GetObject()) {
      const std::string name(entry.name.GetString(), entry.name.GetStringLength());
      if (!entry.value.IsInt64() || entry.value.GetInt64() < 0) {
        fail(path + ".devices." + name, "must be a count >= 0");
      }
      resource.devices.emplace_back(name, entry.value.GetInt64());
    }
  }
  return resource;
}

Mount read_mount(const Json& value, const std::string& path) {
  if (!value.IsObject()) fail(path, "must be an object");
  Mount mount;
  const std::string type = read_string(value, "type", path);
  if (type == "bind") {
    mount.type = MountType::kBind;
  } else if (type == "volume") {
    mount.type = MountType::kVolume;
  } else if (type == "device") {
    mount.type = MountType::kDevice;
  } else {
    fail(path + ".type", "expected \"bind\", \"volume\" or \"device\", got " + quoted(type));
  }
  mount.src = read_string(value, "src", path);
  mount.dst = read_string(value, "dst", path, mount.type == MountType::kDevice ? mount.src : "");
  mount.read_only = read_bool(value, "read_only", path, false);
  if (mount.src.empty()) fail(path + ".src", "is required");
  if (mount.type != MountType::kVolume && mount.src[0] != '/') {
    fail(path + ".src", "must be an absolute host path, got " + quoted(mount.src));
  }
  if (mount.dst.empty() || mount.dst[0] != '/') {
    fail(path + ".dst", "must be an absolute path, got " + quoted(mount.dst));
  }
  if (mount.type == MountType::kDevice) {
    mount.permissions = read_string(value, "permissions", path, "rwm");
    if (mount.permissions.empty() ||
        mount.permissions.find_first_not_of("rwm") != std::string::npos) {
      fail(path + ".permissions", "must use only r, w and m, got " + quoted(mount.permissions));
    }
  }
  return mount;
}

Role read_role(const Json& value, const std::string& path) {
  if (!value.IsObject()) fail(path, "must be an object");
  Role role;
  role.name = read_string(value, "name", path);
  if (role.name.empty()) fail(path + ".name", "is required");
  role.image = read_string(value, "image", path);
  role.base_image = read_string(value, "base_image", path);
  role.entrypoint = read_string(value, "entrypoint", path);
  if (role.entrypoint.empty() && role.image.empty()) {
    fail(path + ".entrypoint", "is required when the role has no image");
  }
  role.args = read_strings(value, "args", path);
  role.env = read_string_map(value, "env", path);
  role.num_replicas = read_int(value, "num_replicas", path, 1);
  if (role.num_replicas < 1) fail(path + ".num_replicas", "must be at least 1");
  if (find(value, "min_replicas") != nullptr) {
    role.min_replicas = read_int(value, "min_replicas", path, 1);
    if (*role.min_replicas < 1 || *role.min_replicas > role.num_replicas) {
      fail(path + ".min_replicas", "must be between 1 and num_replicas (" +
                                       std::to_string(role.num_replicas) + "), got " +
                                       std::to_string(*role.min_replicas));
    }
  }
  role.max_retries = read_int(value, "max_retries", path, 0);
  if (role.max_retries < 0) fail(path + ".max_retries", "must be >= 0");
  role.retry_policy = read_retry_policy(value, path);
  role.resource = read_resource(value, path);
  if (const Json* ports = read_object(value, "port_map", path)) {
    for (const auto& entry : ports->GetObject()) {
      const std::string name(entry.name.GetString(), entry.name.GetStringLength());
      if (!entry.value.IsInt64() || entry.value.GetInt64() < 1 || entry.value.GetInt64() > 65535) {
        fail(path + ".port_map." + name, "must be a port number from 1 to 65535");
      }
      role.port_map.emplace_back(name, entry.value.GetInt64());
    }
  }
  if (const Json* mounts = read_array(value, "mounts", path)) {
    for (const Json& mount : mounts->GetArray()) {
      role.mounts.push_back(
          read_mount(mount, path + ".mounts[" + std::to_string(role.mounts.size()) + "]"));
    }
  }
  if (const Json* metadata = read_object(value, "metadata", path)) {
    for (const auto& entry : metadata->GetObject()) {
      role.metadata.emplace_back(std::string(entry.name.GetString(), entry.name.GetStringLength()),
                                 to_text(entry.value));
    }
  }
  return role;
}

}  // namespace

AppDef read_appdef(const Json& app) {
  AppDef def;
  def.name = read_string(app, "name", "");
  def.metadata = read_string_map(app, "metadata", "");
  const Json* roles = read_array(app, "roles", "");
  if (roles == nullptr || roles->Empty()) fail("roles", "the app has no roles");
  for (const Json& value : roles->GetArray()) {
    const std::string path = "roles[" + std::to_string(def.roles.size()) + "]";
    Role role = read_role(value, path);
    for (const Role& earlier : def.roles) {
      if (earlier.name == role.name) fail(path + ".name", "'" + role.name + "' is used twice");
    }
    def.roles.push_back(std::move(role));
  }
  return def;
}

}  // namespace payload

std::string_view mount_type_name(MountType type) noexcept {
  switch (type) {
    case MountType::kVolume:
      return "volume";
    case MountType::kDevice:
      return "device";
    case MountType::kBind:
      break;
  }
  return "bind";
}

AppDef read_appdef(std::string_view json) {
  return payload::read_appdef(payload::parse_object(json, "sortie.appdef/1"));
}

}  // namespace sortie
