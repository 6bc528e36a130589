#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sortie/appdef.hpp>
#include <sortie/limits.hpp>

#include "appdef_json.hpp"

namespace sortie {
namespace payload {
namespace {

// Counts the host keeps as int (retries, GPUs, devices) stay below 2^31.
constexpr int64_t kMaxCount = std::numeric_limits<int32_t>::max();
// What a negative resource amount other than -1 hears.
constexpr const char* kNotAnAmount = "must be at least 0 (or -1: unset), got ";

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

bool is_absolute(const std::string& path) { return !path.empty() && path[0] == '/'; }

// A program's argv and environment are C strings: a NUL would silently end the text there.
void refuse_nul(const std::string& path, const std::string& text) {
  if (text.find('\0') != std::string::npos) {
    fail(path,
         "holds a NUL character, which a program's arguments and environment cannot carry "
         "(the text would end there); remove it");
  }
}

// Reads an AppDef or a Resource; `scalars` says whether numbers and booleans may be text.
class AppDefReader {
 public:
  explicit AppDefReader(ScalarForm scalars) : text_scalars_(scalars == ScalarForm::kText) {}

  AppDef app(const Json& value) const {
    check_schema(value, "sortie.appdef/1");
    AppDef def;
    def.name = read_string(value, "name", "");
    if (def.name.empty()) fail("name", "is required");
    def.metadata = read_string_map(value, "metadata", "");
    const Json* roles = read_array(value, "roles", "");
    if (roles == nullptr) fail("roles", "is required");
    if (roles->Empty()) fail("roles", "must hold at least one role");
    for (const Json& item : roles->GetArray()) {
      const std::string path = "roles[" + std::to_string(def.roles.size()) + "]";
      Role role = read_role(item, path);
      for (const Role& earlier : def.roles) {
        if (earlier.name == role.name) {
          fail(path + ".name", quoted(role.name) + " is used twice; role names must be unique");
        }
      }
      def.roles.push_back(std::move(role));
    }
    return def;
  }

  Resource resource(const Json& value, const std::string& path) const {
    if (!value.IsObject()) fail_type(path, "an object", value);
    check_schema(value, "sortie.resource/1", path);
    Resource resource;
    if (const Json* cpu = find(value, "cpu")) {
      rapidjson::Value holder;
      const Json& read = scalar(*cpu, holder);
      const std::string cpu_path = member_path(path, "cpu");
      if (!read.IsNumber()) fail_type(cpu_path, "a number", *cpu);
      resource.cpu = read.GetDouble();
      if (resource.cpu < 0 && resource.cpu != -1) fail(cpu_path, kNotAnAmount + describe(read));
    }
    resource.gpu = amount(value, "gpu", path, kMaxCount);
    resource.mem_mb = amount(value, "memMB", path, std::numeric_limits<int64_t>::max());
    resource.capabilities = read_string_map(value, "capabilities", path);
    if (const Json* devices = read_object(value, "devices", path)) {
      for (const auto& entry : devices->GetObject()) {
        const std::string name(entry.name.GetString(), entry.name.GetStringLength());
        const std::string device_path = member_path(path, "devices") + "." + name;
        resource.devices.emplace_back(name, in_range(entry.value, device_path, 0, kMaxCount));
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

  int64_t in_range(const Json& value, const std::string& path, int64_t min, int64_t max) const {
    const int64_t number = integer(value, path);
    if (number < min) {
      fail(path, "must be at least " + std::to_string(min) + ", got " + std::to_string(number));
    }
    if (number > max) {
      fail(path, "must be at most " + std::to_string(max) + ", got " + std::to_string(number));
    }
    return number;
  }

  // A resource amount: absent or -1 means unset.
  int64_t amount(const Json& object, const char* key, const std::string& prefix,
                 int64_t max) const {
    const Json* value = find(object, key);
    if (value == nullptr) return -1;
    const std::string path = member_path(prefix, key);
    const int64_t number = integer(*value, path);
    if (number == -1) return -1;
    if (number < 0) fail(path, kNotAnAmount + std::to_string(number));
    if (number > max) {
      fail(path, "must be at most " + std::to_string(max) + ", got " + std::to_string(number));
    }
    return number;
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
    if (mount.src.empty()) fail(path + ".src", "is required");
    if (mount.type != MountType::kVolume && !is_absolute(mount.src)) {
      fail(path + ".src", "must be an absolute host path, got " + quoted(mount.src));
    }
    if (mount.dst.empty()) fail(path + ".dst", "is required");
    if (!is_absolute(mount.dst)) {
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

  Role read_role(const Json& value, const std::string& path) const {
    if (!value.IsObject()) fail_type(path, "an object", value);
    check_schema(value, "sortie.role/1", path);
    Role role;
    role.name = read_string(value, "name", path);
    if (role.name.empty()) fail(path + ".name", "is required");
    role.image = read_string(value, "image", path);
    role.base_image = read_string(value, "base_image", path);
    role.entrypoint = read_string(value, "entrypoint", path);
    if (role.entrypoint.empty() && role.image.empty()) {
      fail(path + ".entrypoint", "is required when the role has no image");
    }
    refuse_nul(path + ".entrypoint", role.entrypoint);
    role.args = read_strings(value, "args", path);
    for (size_t i = 0; i < role.args.size(); ++i) {
      refuse_nul(path + ".args[" + std::to_string(i) + "]", role.args[i]);
    }
    role.env = read_string_map(value, "env", path);
    for (const auto& [name, env_value] : role.env) {
      refuse_nul(path + ".env", name);
      refuse_nul(path + ".env." + name, env_value);
    }
    if (const Json* replicas = find(value, "num_replicas")) {
      const std::string replicas_path = path + ".num_replicas";
      role.num_replicas = in_range(*replicas, replicas_path, 1, kMaxCount);
      if (static_cast<size_t>(role.num_replicas) > limits::value(limits::kReplicasPerRole)) {
        fail(replicas_path,
             limits::exceeded(std::to_string(role.num_replicas), limits::kReplicasPerRole));
      }
    }
    if (const Json* minimum = find(value, "min_replicas")) {
      role.min_replicas = integer(*minimum, path + ".min_replicas");
      if (*role.min_replicas < 1 || *role.min_replicas > role.num_replicas) {
        fail(path + ".min_replicas", "must be between 1 and num_replicas (" +
                                         std::to_string(role.num_replicas) + "), got " +
                                         std::to_string(*role.min_replicas));
      }
    }
    if (const Json* retries = find(value, "max_retries")) {
      role.max_retries = in_range(*retries, path + ".max_retries", 0, kMaxCount);
    }
    role.retry_policy = retry_policy(value, path);
    if (const Json* resource = read_object(value, "resource", path)) {
      role.resource = this->resource(*resource, path + ".resource");
    }
    if (const Json* ports = read_object(value, "port_map", path)) {
      for (const auto& entry : ports->GetObject()) {
        const std::string name(entry.name.GetString(), entry.name.GetStringLength());
        const std::string port_path = path + ".port_map." + name;
        const int64_t port = integer(entry.value, port_path);
        if (port < 1 || port > 65535) {
          fail(port_path, "must be a port number from 1 to 65535, got " + std::to_string(port));
        }
        role.port_map.emplace_back(name, port);
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
  return payload::AppDefReader(scalars).resource(payload::parse_object(json, "sortie.resource/1"),
                                                 "");
}

}  // namespace sortie
