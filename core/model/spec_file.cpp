#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sortie/core/error.hpp>
#include <sortie/core/spec_file.hpp>

#include "model_files.hpp"
#include "model_suggest.hpp"
#include "yaml_fields.hpp"

namespace sortie::core {
namespace {

const std::vector<std::string> kAppKeys = {"schema", "name", "metadata", "roles"};
const std::vector<std::string> kRoleKeys = {
    "name",     "image",        "base_image",   "entrypoint",  "args",
    "env",      "num_replicas", "min_replicas", "max_retries", "retry_policy",
    "resource", "port_map",     "mounts",       "metadata"};
const std::vector<std::string> kResourceKeys = {"cpu",   "gpu",          "mem_mb",
                                                "memMB", "capabilities", "devices"};
const std::vector<std::string> kMountKeys = {"type", "src", "dst", "read_only", "permissions"};

// Reads one spec document; every error carries FILE:LINE:COL of the node at fault and its path.
class SpecReader {
 public:
  SpecReader(const std::string& origin, const NamedResourceLookup& lookup,
             const std::vector<std::string>& resource_names)
      : origin_(origin), lookup_(lookup), resource_names_(resource_names) {}

  AppDef read_app(const YAML::Node& root) {
    expect_map(root, "");
    check_keys(root, "", kAppKeys);
    AppDef app;
    if (const auto schema = root["schema"]) {
      const std::string text = scalar(schema, "schema");
      if (text != "sortie.appdef/1") {
        fail(schema, "schema", "expected \"sortie.appdef/1\", got \"" + text + "\"");
      }
    }
    app.name = required_scalar(root, "name", "");
    if (const auto metadata = root["metadata"]) app.metadata = string_map(metadata, "metadata");
    const auto roles = root["roles"];
    if (!roles) fail(root, "", "roles is required (a list of roles)");
    if (!roles.IsSequence()) fail_expected(roles, "roles", "a list of roles");
    for (size_t i = 0; i < roles.size(); ++i) {
      app.roles.push_back(read_role(roles[i], indexed_field("roles", i)));
    }
    return app;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& node, const std::string& path,
                         const std::string& message) const {
    fail_field(origin_, mark_of(node), path, message);
  }

  static std::string describe(const YAML::Node& node) {
    if (node.IsMap()) return "a mapping";
    if (node.IsSequence()) return "a list";
    if (node.IsNull()) return "null";
    return "\"" + node.Scalar() + "\"";
  }

  [[noreturn]] void fail_expected(const YAML::Node& node, const std::string& path,
                                  const std::string& expected) const {
    fail_expected_field(origin_, mark_of(node), path, expected, describe(node));
  }

  void expect_map(const YAML::Node& node, const std::string& path) const {
    if (!node.IsMap()) fail_expected(node, path, "a mapping");
  }

  void check_keys(const YAML::Node& node, const std::string& path,
                  const std::vector<std::string>& allowed) const {
    std::set<std::string> seen;
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
        fail_unknown_key(origin_, mark_of(entry.first), path, key, allowed);
      }
      if (!seen.insert(key).second) fail_repeated_key(origin_, mark_of(entry.first), path, key);
    }
  }

  std::string scalar(const YAML::Node& node, const std::string& path) const {
    if (!node.IsScalar()) fail_expected(node, path, kExpectedString);
    return node.Scalar();
  }

  std::string required_scalar(const YAML::Node& parent, const std::string& key,
                              const std::string& path) const {
    const auto node = parent[key];
    if (!node || node.IsNull()) fail(parent, path, key + " is required");
    return scalar(node, join_field(path, key));
  }

  int64_t integer(const YAML::Node& node, const std::string& path, int64_t min) const {
    const std::string expected = "an integer >= " + std::to_string(min);
    if (!node.IsScalar()) fail_expected(node, path, expected);
    const std::string& text = node.Scalar();
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < min) {
      fail_expected(node, path, expected);
    }
    return value;
  }

  int small_integer(const YAML::Node& node, const std::string& path, int min) const {
    const int64_t value = integer(node, path, min);
    if (value > std::numeric_limits<int>::max()) {
      fail(node, path, "expected an integer <= " + std::to_string(std::numeric_limits<int>::max()));
    }
    return static_cast<int>(value);
  }

  double number(const YAML::Node& node, const std::string& path) const {
    if (!node.IsScalar()) fail_expected(node, path, "a number");
    const std::string& text = node.Scalar();
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
      fail_expected(node, path, "a number");
    }
    return value;
  }

  bool boolean(const YAML::Node& node, const std::string& path) const {
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
      fail_expected(node, path, kExpectedBoolean);
    }
    return value;
  }

  std::vector<std::string> string_list(const YAML::Node& node, const std::string& path) const {
    if (!node.IsSequence()) fail_expected(node, path, kExpectedStringList);
    std::vector<std::string> items;
    for (size_t i = 0; i < node.size(); ++i) {
      items.push_back(scalar(node[i], indexed_field(path, i)));
    }
    return items;
  }

  std::map<std::string, std::string> string_map(const YAML::Node& node,
                                                const std::string& path) const {
    if (!node.IsMap()) fail_expected(node, path, kExpectedStringMap);
    std::map<std::string, std::string> items;
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      items[key] = scalar(entry.second, join_field(path, key));
    }
    return items;
  }

  std::map<std::string, int> int_map(const YAML::Node& node, const std::string& path,
                                     int min) const {
    if (!node.IsMap()) fail_expected(node, path, "a mapping of integers");
    std::map<std::string, int> items;
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      items[key] = small_integer(entry.second, join_field(path, key), min);
    }
    return items;
  }

  Role read_role(const YAML::Node& node, const std::string& path) {
    expect_map(node, path);
    check_keys(node, path, kRoleKeys);
    Role role;
    role.name = required_scalar(node, "name", path);
    role.entrypoint = required_scalar(node, "entrypoint", path);
    const auto field = [&](const char* key) { return node[key]; };
    const auto at = [&](const char* key) { return join_field(path, key); };
    if (const auto v = field("image")) role.image = scalar(v, at("image"));
    if (const auto v = field("base_image"); v && !v.IsNull()) {
      role.base_image = scalar(v, at("base_image"));
    }
    if (const auto v = field("args")) role.args = string_list(v, at("args"));
    if (const auto v = field("env")) role.env = string_map(v, at("env"));
    if (const auto v = field("num_replicas")) {
      role.num_replicas = small_integer(v, at("num_replicas"), 1);
    }
    if (const auto v = field("min_replicas"); v && !v.IsNull()) {
      role.min_replicas = small_integer(v, at("min_replicas"), 1);
    }
    if (const auto v = field("max_retries")) {
      role.max_retries = small_integer(v, at("max_retries"), 0);
    }
    if (const auto v = field("retry_policy")) {
      const auto policy = retry_policy_from_string(scalar(v, at("retry_policy")));
      if (!policy) fail_expected(v, at("retry_policy"), "REPLICA, APPLICATION or ROLE");
      role.retry_policy = *policy;
    }
    if (const auto v = field("resource")) role.resource = read_resource(v, at("resource"));
    if (const auto v = field("port_map")) role.port_map = int_map(v, at("port_map"), 0);
    if (const auto v = field("mounts")) read_mounts(v, at("mounts"), role.mounts);
    if (const auto v = field("metadata")) {
      expect_map(v, at("metadata"));
      role.metadata_json = to_json_text(v);
    }
    return role;
  }

  Resource read_resource(const YAML::Node& node, const std::string& path) {
    if (node.IsScalar()) return named_resource(node, path);
    if (!node.IsMap()) fail_expected(node, path, "a mapping or a named resource");
    check_keys(node, path, kResourceKeys);
    Resource res;
    if (const auto v = node["cpu"]) {
      res.cpu = number(v, join_field(path, "cpu"));
      if (res.cpu < 0 && res.cpu != -1) fail_expected(v, join_field(path, "cpu"), "a number >= 0");
    }
    if (const auto v = node["gpu"]) res.gpu = small_integer(v, join_field(path, "gpu"), -1);
    if (node["mem_mb"] && node["memMB"]) {
      fail(node["memMB"], join_field(path, "memMB"), "give either mem_mb or memMB, not both");
    }
    for (const char* key : {"mem_mb", "memMB"}) {
      if (const auto v = node[key]) res.mem_mb = integer(v, join_field(path, key), -1);
    }
    if (const auto v = node["capabilities"]) {
      res.capabilities = string_map(v, join_field(path, "capabilities"));
    }
    if (const auto v = node["devices"]) res.devices = int_map(v, join_field(path, "devices"), 0);
    return res;
  }

  Resource named_resource(const YAML::Node& node, const std::string& path) {
    const std::string name = node.Scalar();
    if (!lookup_) {
      fail(node, path,
           "named resource '" + name + "' cannot be resolved here; give a mapping " +
               "(cpu, gpu, mem_mb) instead");
    }
    const auto resource = lookup_(name);
    if (!resource) {
      fail(node, path,
           "unknown named resource '" + name + "'" + did_you_mean(name, resource_names_));
    }
    return *resource;
  }

  void read_mounts(const YAML::Node& node, const std::string& path, std::vector<Mount>& mounts) {
    if (!node.IsSequence()) fail_expected(node, path, "a list of mounts");
    for (size_t i = 0; i < node.size(); ++i) {
      const std::string item_path = indexed_field(path, i);
      const YAML::Node item = node[i];
      if (item.IsScalar()) {
        parse_mount_string(item, item_path, mounts);
      } else {
        mounts.push_back(read_mount_map(item, item_path));
      }
    }
  }

  Mount read_mount_map(const YAML::Node& node, const std::string& path) {
    if (!node.IsMap()) fail_expected(node, path, "a mount mapping or a 'type=bind,src=..' string");
    check_keys(node, path, kMountKeys);
    Mount mount;
    const auto type = node["type"];
    if (!type) fail(node, path, "type is required (bind, volume or device)");
    mount.type = mount_type(type, join_field(path, "type"), scalar(type, join_field(path, "type")));
    if (const auto v = node["src"]) mount.src = scalar(v, join_field(path, "src"));
    if (const auto v = node["dst"]) mount.dst = scalar(v, join_field(path, "dst"));
    if (const auto v = node["read_only"])
      mount.read_only = boolean(v, join_field(path, "read_only"));
    if (const auto v = node["permissions"]) {
      mount.permissions = scalar(v, join_field(path, "permissions"));
    }
    finish_mount(node, path, mount);
    return mount;
  }

  MountType mount_type(const YAML::Node& node, const std::string& path, const std::string& name) {
    if (name == "bind") return MountType::kBind;
    if (name == "volume") return MountType::kVolume;
    if (name == "device") return MountType::kDevice;
    fail(node, path, "unknown mount type '" + name + "'; expected bind, volume or device");
  }

  // Checks what every mount form needs; a device defaults its dst to its src (as TorchX does).
  void finish_mount(const YAML::Node& node, const std::string& path, Mount& mount) {
    if (mount.src.empty()) fail(node, path, "src is required");
    if (mount.type == MountType::kDevice) {
      if (mount.dst.empty()) mount.dst = mount.src;
      if (mount.permissions.empty() ||
          mount.permissions.find_first_not_of("rwm") != std::string::npos) {
        fail(node, path,
             "permissions must be made of r, w and m (e.g. rwm), got '" + mount.permissions + "'");
      }
    } else if (mount.dst.empty()) {
      fail(node, path, "dst is required");
    }
  }

  // TorchX's parse_mounts form: "type=bind,src=/a,dst=/b,readonly"; "type=" starts each mount.
  void parse_mount_string(const YAML::Node& node, const std::string& path,
                          std::vector<Mount>& mounts) {
    const std::string& text = node.Scalar();
    size_t first = mounts.size();
    bool started = false;
    size_t begin = 0;
    while (begin <= text.size()) {
      size_t end = text.find(',', begin);
      if (end == std::string::npos) end = text.size();
      const std::string option = text.substr(begin, end - begin);
      begin = end + 1;
      if (option.empty()) continue;
      const size_t equals = option.find('=');
      const std::string key = option.substr(0, equals);
      const std::string value = equals == std::string::npos ? "" : option.substr(equals + 1);
      if (key == "type") {
        if (started) finish_mount(node, path, mounts.back());
        mounts.push_back(Mount{});
        mounts.back().type = mount_type(node, path, value);
        started = true;
        continue;
      }
      if (!started) fail(node, path, "a mount string must start with type=bind|volume|device");
      Mount& mount = mounts.back();
      if (key == "src" || key == "source") {
        mount.src = value;
      } else if (key == "dst" || key == "destination" || key == "target") {
        mount.dst = value;
      } else if (key == "readonly" || key == "read_only") {
        if (equals != std::string::npos && value != "true" && value != "false") {
          fail(node, path, "'" + option + "': readonly takes no value, or true/false");
        }
        mount.read_only = value != "false";
      } else if (key == "perm" || key == "permissions") {
        mount.permissions = value;
      } else {
        const std::vector<std::string> keys = {"type",   "src",      "source",    "dst",
                                               "target", "readonly", "read_only", "perm"};
        fail(node, path, "unknown mount option '" + key + "'" + did_you_mean(key, keys));
      }
    }
    if (first == mounts.size()) fail(node, path, "empty mount string");
    finish_mount(node, path, mounts.back());
  }

  // Role metadata keeps any JSON value; plain YAML scalars become numbers, booleans or null
  // when they read as such, quoted ones stay strings.
  static void write_json(const YAML::Node& node, rapidjson::Writer<rapidjson::StringBuffer>& w) {
    if (node.IsMap()) {
      w.StartObject();
      for (const auto& entry : node) {
        w.Key(entry.first.Scalar().c_str());
        write_json(entry.second, w);
      }
      w.EndObject();
    } else if (node.IsSequence()) {
      w.StartArray();
      for (const auto& item : node) write_json(item, w);
      w.EndArray();
    } else if (node.IsNull()) {
      w.Null();
    } else {
      const std::string& text = node.Scalar();
      bool flag = false;
      int64_t integer_value = 0;
      const auto [end, error] =
          std::from_chars(text.data(), text.data() + text.size(), integer_value);
      char* double_end = nullptr;
      const double double_value = std::strtod(text.c_str(), &double_end);
      if (node.Tag() == "!") {
        w.String(text.c_str());
      } else if (text == "true" || text == "false") {
        w.Bool(YAML::convert<bool>::decode(node, flag) && flag);
      } else if (!text.empty() && error == std::errc() && end == text.data() + text.size()) {
        w.Int64(integer_value);
      } else if (!text.empty() && double_end == text.c_str() + text.size() &&
                 std::isfinite(double_value)) {
        w.Double(double_value);
      } else {
        w.String(text.c_str());
      }
    }
  }

  static std::string to_json_text(const YAML::Node& node) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    write_json(node, writer);
    return {buffer.GetString(), buffer.GetSize()};
  }

  const std::string& origin_;
  const NamedResourceLookup& lookup_;
  const std::vector<std::string>& resource_names_;
};

}  // namespace

AppDef parse_app_spec(const std::string& text, const std::string& origin,
                      const NamedResourceLookup& lookup,
                      const std::vector<std::string>& resource_names) {
  const YAML::Node root = load_yaml_document(text, origin);
  if (!root || root.IsNull()) throw Error::invalid_argument(origin + ": the app spec is empty");
  AppDef app = SpecReader(origin, lookup, resource_names).read_app(root);
  try {
    validate(app);
  } catch (const Error& e) {
    throw Error(e.status(), origin + ": " + e.what());
  }
  return app;
}

AppDef load_app_spec(const std::string& path, const NamedResourceLookup& lookup,
                     const std::vector<std::string>& resource_names) {
  return parse_app_spec(read_text_file(path, "app spec", limits::kSpecFileBytes), path, lookup,
                        resource_names);
}

}  // namespace sortie::core
