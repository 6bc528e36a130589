#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sortie/appdef.hpp>
#include <sortie/model/error.hpp>
#include <sortie/model/model_json.hpp>
#include <sortie/model/spec_file.hpp>
#include <string_view>

#include "model_files.hpp"
#include "model_suggest.hpp"
#include "yaml_fields.hpp"

namespace sortie::model {
namespace {

// The keys a spec may write: the SDK reader's members, with a schema at the top and mem_mb, the
// spelling of `sortie run` options and TorchX, beside memMB.
std::vector<std::string> with_extra(std::vector<std::string> keys, const std::string& before,
                                    const std::string& extra) {
  keys.insert(std::find(keys.begin(), keys.end(), before), extra);
  return keys;
}

const std::vector<std::string> kAppKeys = with_extra(appdef_members(), "name", "schema");
const std::vector<std::string> kResourceKeys = with_extra(resource_members(), "memMB", "mem_mb");

// Turns a spec document into the sortie.appdef/1 JSON that the SDK's reader checks, noting where
// each field is written so that the reader's errors get FILE:LINE:COL. Only what is particular
// to spec files happens here: unknown and repeated keys, named resources, the mem_mb spelling and
// TorchX mount strings. Scalars stay text (the reader takes ScalarForm::kText), except in role
// metadata, which keeps YAML's typing since its values may be any JSON.
class SpecToJson {
 public:
  SpecToJson(const std::string& origin, const NamedResourceLookup& lookup,
             const std::vector<std::string>& resource_names)
      : origin_(origin), lookup_(lookup), resource_names_(resource_names) {}

  std::string app(const YAML::Node& root) {
    if (!root.IsMap()) fail_expected_field(origin_, mark_of(root), "", "a mapping", describe(root));
    check_keys(root, "", kAppKeys);
    note("", root);
    writer_.StartObject();
    for (const auto& entry : root) {
      const std::string key = entry.first.Scalar();
      write_key(key);
      if (key == "roles" && entry.second.IsSequence()) {
        note(key, entry.second);
        writer_.StartArray();
        for (size_t i = 0; i < entry.second.size(); ++i) {
          role(entry.second[i], indexed_field(key, i));
        }
        writer_.EndArray();
      } else {
        text_value(entry.second, key);
      }
    }
    writer_.EndObject();
    return {buffer_.GetString(), buffer_.GetSize()};
  }

  // Where the field that an error of the SDK's reader names ("roles[0].args[1]: ...") is
  // written: the longest noted path that starts the message, else the document itself.
  TextMark mark_of_message(const std::string& message) const {
    TextMark mark = marks_.at("");
    size_t longest = 0;
    for (const auto& [path, path_mark] : marks_) {
      if (path.size() > longest && message.size() > path.size() &&
          message.compare(0, path.size(), path) == 0 &&
          std::string_view(":.[").find(message[path.size()]) != std::string_view::npos) {
        mark = path_mark;
        longest = path.size();
      }
    }
    return mark;
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

  void note(const std::string& path, const YAML::Node& node) {
    marks_.emplace(path, mark_of(node));
  }

  void write_key(const std::string& key) {
    writer_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
  }

  void write_string(const std::string& text) {
    writer_.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  }

  // Any node as JSON with text scalars; the SDK's reader says what is wrong with it.
  void text_value(const YAML::Node& node, const std::string& path) {
    note(path, node);
    if (node.IsMap()) {
      writer_.StartObject();
      for (const auto& entry : node) {
        const std::string key = entry.first.Scalar();
        write_key(key);
        text_value(entry.second, join_field(path, key));
      }
      writer_.EndObject();
    } else if (node.IsSequence()) {
      writer_.StartArray();
      for (size_t i = 0; i < node.size(); ++i) text_value(node[i], indexed_field(path, i));
      writer_.EndArray();
    } else if (node.IsNull()) {
      writer_.Null();
    } else {
      write_string(node.Scalar());
    }
  }

  void role(const YAML::Node& node, const std::string& path) {
    if (!node.IsMap()) return text_value(node, path);
    check_keys(node, path, role_members());
    note(path, node);
    writer_.StartObject();
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar();
      const std::string field = join_field(path, key);
      write_key(key);
      if (key == "resource") {
        resource(entry.second, field);
      } else if (key == "mounts") {
        mounts(entry.second, field);
      } else if (key == "metadata") {
        note(field, entry.second);
        typed_value(entry.second);
      } else {
        text_value(entry.second, field);
      }
    }
    writer_.EndObject();
  }

  void resource(const YAML::Node& node, const std::string& path) {
    if (node.IsScalar()) {
      note(path, node);
      const std::string json = write_resource(named_resource(node, path));
      writer_.RawValue(json.data(), json.size(), rapidjson::kObjectType);
      return;
    }
    if (!node.IsMap()) return text_value(node, path);
    check_keys(node, path, kResourceKeys);
    if (node["mem_mb"] && node["memMB"]) {
      fail(node["memMB"], join_field(path, "memMB"), "give either mem_mb or memMB, not both");
    }
    note(path, node);
    writer_.StartObject();
    for (const auto& entry : node) {
      const std::string key = entry.first.Scalar() == "mem_mb" ? "memMB" : entry.first.Scalar();
      write_key(key);
      text_value(entry.second, join_field(path, key));
    }
    writer_.EndObject();
  }

  Resource named_resource(const YAML::Node& node, const std::string& path) const {
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

  // A list of mount mappings or TorchX mount strings; one string may hold several mounts.
  void mounts(const YAML::Node& node, const std::string& path) {
    if (!node.IsSequence()) return text_value(node, path);
    note(path, node);
    writer_.StartArray();
    size_t count = 0;
    for (const auto& item : node) {
      if (item.IsScalar()) {
        for (const auto& options : parse_mount_string(item, indexed_field(path, count))) {
          note(indexed_field(path, count++), item);
          writer_.StartObject();
          for (const auto& [key, value] : options) {
            write_key(key);
            write_string(value);
          }
          writer_.EndObject();
        }
      } else {
        if (item.IsMap()) check_keys(item, indexed_field(path, count), mount_members());
        text_value(item, indexed_field(path, count++));
      }
    }
    writer_.EndArray();
  }

  // TorchX's parse_mounts form: "type=bind,src=/a,dst=/b,readonly"; "type=" starts each mount.
  // Returns each mount's members under their P-2 names.
  std::vector<std::map<std::string, std::string>> parse_mount_string(
      const YAML::Node& node, const std::string& path) const {
    static const std::map<std::string, std::string> kAliases = {
        {"type", "type"},          {"src", "src"},
        {"source", "src"},         {"dst", "dst"},
        {"destination", "dst"},    {"target", "dst"},
        {"readonly", "read_only"}, {"read_only", "read_only"},
        {"perm", "permissions"},   {"permissions", "permissions"}};
    const std::string& text = node.Scalar();
    std::vector<std::map<std::string, std::string>> mounts;
    size_t begin = 0;
    while (begin <= text.size()) {
      size_t end = text.find(',', begin);
      if (end == std::string::npos) end = text.size();
      const std::string option = text.substr(begin, end - begin);
      begin = end + 1;
      if (option.empty()) continue;
      const size_t equals = option.find('=');
      const std::string key = option.substr(0, equals);
      std::string value = equals == std::string::npos ? "" : option.substr(equals + 1);
      const auto alias = kAliases.find(key);
      if (alias == kAliases.end()) {
        std::vector<std::string> keys;
        for (const auto& [name, unused] : kAliases) keys.push_back(name);
        fail(node, path, "unknown mount option '" + key + "'" + did_you_mean(key, keys));
      }
      if (alias->second == "type") mounts.emplace_back();
      if (mounts.empty())
        fail(node, path, "a mount string must start with type=bind|volume|device");
      if (alias->second == "read_only") {
        if (equals != std::string::npos && value != "true" && value != "false") {
          fail(node, path, "'" + option + "': readonly takes no value, or true/false");
        }
        value = value == "false" ? "false" : "true";
      }
      mounts.back()[alias->second] = value;
    }
    if (mounts.empty()) fail(node, path, "empty mount string");
    return mounts;
  }

  // Role metadata keeps any JSON value; plain YAML scalars become numbers, booleans or null
  // when they read as such, quoted ones stay strings.
  void typed_value(const YAML::Node& node) {
    if (node.IsMap()) {
      writer_.StartObject();
      for (const auto& entry : node) {
        write_key(entry.first.Scalar());
        typed_value(entry.second);
      }
      writer_.EndObject();
    } else if (node.IsSequence()) {
      writer_.StartArray();
      for (const auto& item : node) typed_value(item);
      writer_.EndArray();
    } else if (node.IsNull()) {
      writer_.Null();
    } else {
      const std::string& text = node.Scalar();
      int64_t integer_value = 0;
      const auto [end, error] =
          std::from_chars(text.data(), text.data() + text.size(), integer_value);
      char* double_end = nullptr;
      const double double_value = std::strtod(text.c_str(), &double_end);
      if (node.Tag() == "!") {
        write_string(text);
      } else if (text == "true" || text == "false") {
        writer_.Bool(text == "true");
      } else if (!text.empty() && error == std::errc() && end == text.data() + text.size()) {
        writer_.Int64(integer_value);
      } else if (!text.empty() && double_end == text.c_str() + text.size() &&
                 std::isfinite(double_value)) {
        writer_.Double(double_value);
      } else {
        write_string(text);
      }
    }
  }

  const std::string& origin_;
  const NamedResourceLookup& lookup_;
  const std::vector<std::string>& resource_names_;
  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> writer_{buffer_};
  std::map<std::string, TextMark> marks_;
};

}  // namespace

AppDef parse_app_spec(const std::string& text, const std::string& origin,
                      const NamedResourceLookup& lookup,
                      const std::vector<std::string>& resource_names) {
  const YAML::Node root = load_yaml_document(text, origin);
  if (!root || root.IsNull()) throw Error::invalid_argument(origin + ": the app spec is empty");
  SpecToJson spec(origin, lookup, resource_names);
  const std::string json = spec.app(root);
  try {
    return read_appdef(json, ScalarForm::kText);
  } catch (const Error& e) {
    throw Error(e.status(),
                field_location(origin, spec.mark_of_message(e.what()), "") + ": " + e.what());
  }
}

AppDef load_app_spec(const std::string& path, const NamedResourceLookup& lookup,
                     const std::vector<std::string>& resource_names) {
  return parse_app_spec(read_text_file(path, "app spec", limits::kSpecFileBytes), path, lookup,
                        resource_names);
}

}  // namespace sortie::model
