#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sortie/appdef.hpp>

#include "appdef_check.hpp"
#include "appdef_json.hpp"

namespace sortie {
namespace payload {
namespace {

// Reads an AppDef or a Resource, types first; the values then go through the checks
// check_appdef also runs (appdef_check.hpp). `scalars` says whether numbers and booleans may be
// text.
class AppDefReader {
 public:
  explicit AppDefReader(ScalarForm scalars) : text_scalars_(scalars == ScalarForm::kText) {}

  AppDef app(const Json& value) const {
    check_schema(value, "sortie.appdef/1");
    AppDef def;
    def.name = read_string(value, "name", "");
    check_app_name(def.name);
    def.metadata = read_string_map(value, "metadata", "");
    def.output_dir = read_string(value, "output_dir", "");
    check_output_dir(def.output_dir);
    const Json* roles = read_array(value, "roles", "");
    if (roles == nullptr) fail("roles", "is required");
    check_role_count(roles->Size());
    for (const Json& item : roles->GetArray()) {
      const std::string path = "roles[" + std::to_string(def.roles.size()) + "]";
      def.roles.push_back(read_role(item, path));
      check_role(def.roles.back(), path);
      check_unique_name(def.roles, def.roles.size() - 1, path);
    }
    return def;
  }

  // A resource's types; check_resource checks its values.
  Resource resource(const Json& value, const std::string& path) const {
    if (!value.IsObject()) fail_type(path, "an object", value);
    check_schema(value, "sortie.resource/1", path);
    Resource resource;
    if (const Json* cpu = find(value, "cpu")) {
      rapidjson::Value holder;
      const Json& read = scalar(*cpu, holder);
      if (!read.IsNumber()) fail_type(member_path(path, "cpu"), "a number", *cpu);
      resource.cpu = read.GetDouble();
    }
    resource.gpu = optional_integer(value, "gpu", path, -1);
    resource.mem_mb = optional_integer(value, "memMB", path, -1);
    resource.capabilities = read_string_map(value, "capabilities", path);
    if (const Json* devices = read_object(value, "devices", path)) {
      for (const auto& entry : devices->GetObject()) {
        const std::string name(entry.name.GetString(), entry.name.GetStringLength());
        resource.devices.emplace_back(
            name, integer(entry.value, member_path(path, "devices") + "." + name));
      }
    }
    return resource;
  }

 private:
  // With text scalars, a string that reads as a number or a boolean (YAML 1.2's core schema:
  // decimal numbers, true/True/TRUE, false/False/FALSE) is read as that value.
  const Json& scalar(const Json& value, rapidjson::Value& holder) const {
    if (!text_scalars_ || !value.IsString()) return value;
    const std::string_view text(value.GetString(), value.GetStringLength());
    if (text == "true" || text == "True" || text == "TRUE") return holder.SetBool(true);
    if (text == "false" || text == "False" || text == "FALSE") return holder.SetBool(false);
    if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string_view::npos) {
      return value;
    }
    int64_t integer = 0;
    const auto [integer_end, error] =
        std::from_chars(text.data(), text.data() + text.size(), integer);
    if (error == std::errc() && integer_end == text.data() + text.size()) {
      return holder.SetInt64(integer);
    }
    const std::string digits(text);
    char* end = nullptr;
    const double number = std::strtod(digits.c_str(), &end);
    if (end != digits.c_str() + digits.size() || !std::isfinite(number)) return value;
    return holder.SetDouble(number);
  }

  int64_t integer(const Json& value, const std::string& path) const {
    rapidjson::Value holder;
    return int_value(scalar(value, holder), path);
  }

  bool boolean(const Json& object, const char* key, const std::string& prefix) const {
    const Json* value = find(object, key);
    if (value == nullptr) return false;
    rapidjson::Value holder;
    const Json& read = scalar(*value, holder);
    if (!read.IsBool()) fail_type(member_path(prefix, key), "true or false", *value);
    return read.GetBool();
  }

  int64_t optional_integer(const Json& object, const char* key, const std::string& prefix,
                           int64_t fallback) const {
    const Json* value = find(object, key);
    return value == nullptr ? fallback : integer(*value, member_path(prefix, key));
  }

  RetryPolicy retry_policy(const Json& role, const std::string& path) const {
    const std::string name = read_string(role, "retry_policy", path, "APPLICATION");
    const std::optional<RetryPolicy> policy = retry_policy_from_name(name);
    if (!policy) {
      fail(member_path(path, "retry_policy"),
           "expected \"REPLICA\", \"APPLICATION\" or \"ROLE\", got " + quoted(name));
    }
    return *policy;
  }

  Mount mount(const Json& value, const std::string& path) const {
    if (!value.IsObject()) fail_type(path, "an object", value);
    Mount mount;
    const std::string type = read_string(value, "type", path);
    if (type == "bind") {
      mount.type = MountType::kBind;
    } else if (type == "volume") {
      mount.type = MountType::kVolume;
    } else if (type == "device") {
      mount.type = MountType::kDevice;
    } else if (type.empty()) {
      fail(path + ".type", "is required (\"bind\", \"volume\" or \"device\")");
    } else {
      fail(path + ".type", "expected \"bind\", \"volume\" or \"device\", got " + quoted(type));
    }
    mount.src = read_string(value, "src", path);
    // A device appears at its own path unless told otherwise (TorchX DeviceMount).
    mount.dst = read_string(value, "dst", path, mount.type == MountType::kDevice ? mount.src : "");
    mount.read_only = boolean(value, "read_only", path);
    if (mount.type == MountType::kDevice) {
      mount.permissions = read_string(value, "permissions", path, "rwm");
    }
    return mount;
  }

  // A role's types; check_role checks its values.
  Role read_role(const Json& value, const std::string& path) const {
    if (!value.IsObject()) fail_type(path, "an object", value);
    check_schema(value, "sortie.role/1", path);
    Role role;
    role.name = read_string(value, "name", path);
    role.image = read_string(value, "image", path);
    role.base_image = read_string(value, "base_image", path);
    role.entrypoint = read_string(value, "entrypoint", path);
    role.args = read_strings(value, "args", path);
    role.env = read_string_map(value, "env", path);
    role.num_replicas = optional_integer(value, "num_replicas", path, 1);
    if (const Json* minimum = find(value, "min_replicas")) {
      role.min_replicas = integer(*minimum, path + ".min_replicas");
    }
    role.max_retries = optional_integer(value, "max_retries", path, 0);
    role.retry_policy = retry_policy(value, path);
    if (const Json* resource = read_object(value, "resource", path)) {
      role.resource = this->resource(*resource, path + ".resource");
    }
    if (const Json* ports = read_object(value, "port_map", path)) {
      for (const auto& entry : ports->GetObject()) {
        const std::string name(entry.name.GetString(), entry.name.GetStringLength());
        role.port_map.emplace_back(name, integer(entry.value, path + ".port_map." + name));
      }
    }
    if (const Json* mounts = read_array(value, "mounts", path)) {
      for (const Json& item : mounts->GetArray()) {
        role.mounts.push_back(
            mount(item, path + ".mounts[" + std::to_string(role.mounts.size()) + "]"));
      }
    }
    if (const Json* metadata = read_object(value, "metadata", path)) {
      for (const auto& entry : metadata->GetObject()) {
        role.metadata.emplace_back(
            std::string(entry.name.GetString(), entry.name.GetStringLength()),
            to_text(entry.value));
      }
    }
    return role;
  }

  bool text_scalars_;
};

}  // namespace

AppDef read_appdef(const Json& app) { return AppDefReader(ScalarForm::kTyped).app(app); }

}  // namespace payload

const std::vector<std::string>& appdef_members() {
  static const std::vector<std::string> members = {"name", "metadata", "roles"};
  return members;
}

const std::vector<std::string>& role_members() {
  static const std::vector<std::string> members = {
      "name",     "image",        "base_image",   "entrypoint",  "args",
      "env",      "num_replicas", "min_replicas", "max_retries", "retry_policy",
      "resource", "port_map",     "mounts",       "metadata"};
  return members;
}

const std::vector<std::string>& resource_members() {
  static const std::vector<std::string> members = {"cpu", "gpu", "memMB", "capabilities",
                                                   "devices"};
  return members;
}

const std::vector<std::string>& mount_members() {
  static const std::vector<std::string> members = {"type", "src", "dst", "read_only",
                                                   "permissions"};
  return members;
}

const std::string* find_value(const StringPairs& pairs, std::string_view key) {
  for (const auto& [name, value] : pairs) {
    if (name == key) return &value;
  }
  return nullptr;
}

void set_value(StringPairs& pairs, std::string_view key, std::string value) {
  for (auto& [name, old] : pairs) {
    if (name == key) {
      old = std::move(value);
      return;
    }
  }
  pairs.emplace_back(std::string(key), std::move(value));
}

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

AppDef read_appdef(std::string_view json, ScalarForm scalars) {
  return payload::AppDefReader(scalars).app(payload::parse_object(json, "sortie.appdef/1"));
}

Resource read_resource(std::string_view json, ScalarForm scalars) {
  Resource resource =
      payload::AppDefReader(scalars).resource(payload::parse_object(json, "sortie.resource/1"), "");
  payload::check_resource(resource, "");
  return resource;
}

}  // namespace sortie
