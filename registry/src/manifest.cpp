// File: registry/src/manifest.cpp
//
// Parses one manifest. A fault in the file as a whole (syntax, file_format_version, "plugin")
// refuses the file; a fault in one "provides" entry skips that entry only (REG-12).
#include "manifest.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sortie/plugin_abi.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sortie/appdef.hpp>
#include <sortie/error.hpp>
#include <sortie/json_nesting.hpp>
#include <sortie/limits.hpp>
#include <sortie/registry/suggest.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace sortie::registry::detail {
namespace {

namespace fs = std::filesystem;

// The major version of file_format_version this reader understands (REG-7).
constexpr int kFileFormatMajor = 1;

// A fault that makes the file or one entry unusable; the message starts with the JSON path.
class ManifestFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& json_path, const std::string& what) {
  throw ManifestFault(json_path + ": " + what);
}

const char* type_name(const rapidjson::Value& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "a boolean";
    case rapidjson::kObjectType:
      return "an object";
    case rapidjson::kArrayType:
      return "an array";
    case rapidjson::kStringType:
      return "a string";
    case rapidjson::kNumberType:
      return "a number";
  }
  return "a value of unknown type";
}

const rapidjson::Value* member(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  return it == object.MemberEnd() ? nullptr : &it->value;
}

std::optional<std::string> optional_string(const rapidjson::Value& object, const char* name,
                                           const std::string& json_path) {
  const rapidjson::Value* value = member(object, name);
  if (value == nullptr) return std::nullopt;
  if (!value->IsString())
    fail(json_path, std::string("expected a string, found ") + type_name(*value));
  return std::string(value->GetString(), value->GetStringLength());
}

std::string required_string(const rapidjson::Value& object, const char* name,
                            const std::string& json_path) {
  std::optional<std::string> value = optional_string(object, name, json_path);
  if (!value) fail(json_path, "missing; this member is required");
  return *value;
}

bool is_valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

std::string required_name(const rapidjson::Value& object, const char* name,
                          const std::string& json_path) {
  std::string value = required_string(object, name, json_path);
  if (!is_valid_name(value)) {
    fail(json_path, "'" + value + "' is not a valid name; use one or more of A-Z a-z 0-9 _ . -");
  }
  return value;
}

// Parses "MAJOR.MINOR" or, when allow_patch, "MAJOR.MINOR.PATCH"; each part decimal.
std::optional<std::pair<uint32_t, uint32_t>> parse_version(std::string_view text,
                                                           bool allow_patch) {
  uint32_t parts[3] = {0, 0, 0};
  size_t count = 0;
  size_t pos = 0;
  while (true) {
    if (count == 3) return std::nullopt;
    size_t end = pos;
    uint64_t value = 0;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9' && value <= 0xFFFF) {
      value = value * 10 + static_cast<uint64_t>(text[end] - '0');
      ++end;
    }
    if (end == pos || value > 0xFFFF) return std::nullopt;
    parts[count++] = static_cast<uint32_t>(value);
    if (end == text.size()) break;
    if (text[end] != '.') return std::nullopt;
    pos = end + 1;
  }
  if (count < 2 || (count == 3 && !allow_patch)) return std::nullopt;
  return std::make_pair(parts[0], parts[1]);
}

uint32_t parse_abi_version(const rapidjson::Value& abi, const char* name,
                           const std::string& json_path) {
  const std::string text = required_string(abi, name, json_path);
  const auto version = parse_version(text, /*allow_patch=*/false);
  if (!version) fail(json_path, "'" + text + "' is not an ABI version of the form MAJOR.MINOR");
  return SORTIE_ABI_VERSION(version->first, version->second);
}

std::string to_compact_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// RapidJSON reports a byte offset; people need a line and a column (both 1-based).
std::string line_and_column(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const size_t line = 1 + static_cast<size_t>(std::count(before.begin(), before.end(), '\n'));
  const size_t last_newline = before.rfind('\n');
  const size_t column = last_newline == std::string_view::npos ? offset + 1 : offset - last_newline;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

void check_file_format_version(const rapidjson::Value& root) {
  const std::string text = required_string(root, "file_format_version", "file_format_version");
  const auto version = parse_version(text, /*allow_patch=*/true);
  if (!version) {
    fail("file_format_version", "'" + text + "' is not a version of the form MAJOR.MINOR[.PATCH]");
  }
  if (version->first != kFileFormatMajor) {
    fail("file_format_version",
         "version '" + text + "' is not supported; this sortie reads " +
             std::to_string(kFileFormatMajor) +
             ".x manifests (upgrade sortie, or install a plugin release made for it)");
  }
}

std::shared_ptr<PluginLibrary> parse_plugin(const rapidjson::Value& plugin,
                                            const fs::path& manifest_path) {
  if (!plugin.IsObject())
    fail("plugin", std::string("expected an object, found ") + type_name(plugin));
  auto library = std::make_shared<PluginLibrary>();
  library->manifest_path = manifest_path.string();
  library->name = required_name(plugin, "name", "plugin.name");
  library->version = required_string(plugin, "version", "plugin.version");
  library->description = optional_string(plugin, "description", "plugin.description").value_or("");
  const std::string path = required_string(plugin, "library", "plugin.library");
  if (path.empty())
    fail("plugin.library", "is empty; give the path of the plugin's shared library");
  library->library_path = (manifest_path.parent_path() / path).lexically_normal().string();
  const rapidjson::Value* abi = member(plugin, "abi");
  if (abi == nullptr) fail("plugin.abi", "missing; give {\"min\": \"1.0\", \"max\": \"1.0\"}");
  if (!abi->IsObject())
    fail("plugin.abi", std::string("expected an object, found ") + type_name(*abi));
  library->abi_min = parse_abi_version(*abi, "min", "plugin.abi.min");
  library->abi_max = parse_abi_version(*abi, "max", "plugin.abi.max");
  if (library->abi_min > library->abi_max) fail("plugin.abi", "min is greater than max");
  const std::string isolation =
      optional_string(plugin, "isolation", "plugin.isolation").value_or("in_process");
  if (isolation != "in_process" && isolation != "subprocess") {
    fail("plugin.isolation", "'" + isolation + "' is not an isolation mode; use \"in_process\" " +
                                 "(the default) or \"subprocess\"");
  }
  library->isolate = isolation == "subprocess";
  return library;
}

// Requires a library for code-backed entries; named by the entry's JSON path.
void require_plugin(const Entry& entry, const std::shared_ptr<const PluginLibrary>& plugin,
                    const std::string& json_path, const char* why) {
  if (plugin == nullptr) {
    fail(json_path, std::string(to_string(entry.group)) + " entry '" + entry.name + "' " + why +
                        ", but the manifest has no \"plugin\" member");
  }
}

// The required object member `name` of a data-only entry, as compact JSON.
std::string data_object(const rapidjson::Value& value, const char* name,
                        const std::string& json_path, const char* group) {
  const rapidjson::Value* object = member(value, name);
  if (object == nullptr) {
    fail(json_path + "." + name, std::string("missing; a ") + group + " entry is data only");
  }
  if (!object->IsObject()) {
    fail(json_path + "." + name, std::string("expected an object, found ") + type_name(*object));
  }
  return to_compact_json(*object);
}

// Unknown members are ignored so that later minor versions may add some (REG-6, REG-10), but
// one close to a member this version knows is a typo ("descripton"), refused naming the member
// it meant and its line (REG-16).
void refuse_misspelt_members(const rapidjson::Value& object, std::string_view text,
                             const std::string& json_path, const std::vector<std::string>& known) {
  for (const auto& member : object.GetObject()) {
    const std::string key(member.name.GetString(), member.name.GetStringLength());
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string hint = did_you_mean(key, known);
    if (hint.empty()) continue;  // a member of a later version
    const size_t at = text.find("\"" + key + "\"");
    fail((json_path.empty() ? "" : json_path + ".") + key,
         "unknown member" + hint +
             (at == std::string_view::npos ? "" : " at " + line_and_column(text, at)));
  }
}

// A named resource's "resource" is as strict as a spec's (docs/registry.md REG-15): a member
// the resource model lacks is refused with the closest one and the line it is on ("memMb" would
// otherwise leave memory unset), and the values are read by the SDK's own reader. A fault skips
// this entry only (REG-12).
void check_resource(const rapidjson::Value& resource, std::string_view text,
                    const std::string& json_path) {
  static const std::vector<std::string> kMembers = {"cpu", "gpu", "memMB", "capabilities",
                                                    "devices"};
  for (const auto& member : resource.GetObject()) {
    const std::string key(member.name.GetString(), member.name.GetStringLength());
    if (std::find(kMembers.begin(), kMembers.end(), key) != kMembers.end()) continue;
    const size_t at = text.find("\"" + key + "\"");
    fail(json_path + "." + key,
         "unknown member" + did_you_mean(key, kMembers) +
             (at == std::string_view::npos ? "" : " at " + line_and_column(text, at)) +
             "; a resource has cpu, gpu, memMB, capabilities and devices");
  }
  try {
    read_resource(to_compact_json(resource));
  } catch (const Error& e) {
    fail(json_path, e.what());
  }
}

Entry parse_entry(const rapidjson::Value& value, std::string_view text,
                  const std::string& json_path, const std::shared_ptr<const PluginLibrary>& plugin,
                  const std::string& manifest_path) {
  if (!value.IsObject())
    fail(json_path, std::string("expected an object, found ") + type_name(value));
  refuse_misspelt_members(value, text, json_path,
                          {"group", "name", "description", "resource", "component", "executor"});
  Entry entry;
  entry.manifest_path = manifest_path;
  const std::string group = required_string(value, "group", json_path + ".group");
  const auto parsed_group = group_from_string(group);
  if (!parsed_group) {
    fail(json_path + ".group",
         "unknown group '" + group +
             "'; expected sortie.schedulers, sortie.packagers, sortie.image_providers, "
             "sortie.named_resources, sortie.components or sortie.executors");
  }
  entry.group = *parsed_group;
  entry.name = required_name(value, "name", json_path + ".name");
  entry.description =
      optional_string(value, "description", json_path + ".description").value_or("");
  switch (entry.group) {
    case Group::kSchedulers:
    case Group::kPackagers:
    case Group::kImageProviders:
      require_plugin(entry, plugin, json_path, "is implemented by a library");
      entry.plugin = plugin;
      break;
    case Group::kNamedResources:
      if (const rapidjson::Value* resource = member(value, "resource")) {
        if (!resource->IsObject()) {
          fail(json_path + ".resource",
               std::string("expected an object, found ") + type_name(*resource));
        }
        check_resource(*resource, text, json_path + ".resource");
        entry.data_json = to_compact_json(*resource);
      } else {
        require_plugin(entry, plugin, json_path,
                       "has no \"resource\" object, so it needs a library");
        entry.plugin = plugin;
      }
      break;
    case Group::kComponents:
      entry.data_json = data_object(value, "component", json_path, "sortie.components");
      break;
    case Group::kExecutors:
      entry.data_json = data_object(value, "executor", json_path, "sortie.executors");
      if (!member(*member(value, "executor"), "scheduler")) {
        fail(json_path + ".executor.scheduler", "missing; name the scheduler that runs it");
      }
      break;
  }
  return entry;
}

// A manifest past limits::kManifestBytes is refused before it is read (manifests are regular
// files found by listing a directory, so their size is known up front).
std::string read_file(const fs::path& path) {
  std::error_code size_error;
  const std::uintmax_t size = fs::file_size(path, size_error);
  if (!size_error && size > limits::value(limits::kManifestBytes)) {
    throw ManifestFault(limits::exceeded("the file's size (" + std::to_string(size) + " bytes)",
                                         limits::kManifestBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ManifestFault(std::string("cannot read the file: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ManifestFault(std::string("cannot read the file: ") + std::strerror(errno));
  return std::move(text).str();
}

}  // namespace

ManifestContents read_manifest(const std::string& path) {
  const fs::path manifest_path = fs::absolute(path).lexically_normal();
  ManifestContents contents;
  auto problem = [&](const std::string& message) {
    contents.problems.push_back(Problem{manifest_path.string(), message});
  };
  rapidjson::Document document;
  std::shared_ptr<PluginLibrary> plugin;  // completed with `provides` once the entries parsed
  std::string text;
  try {
    text = read_file(manifest_path);
    if (json_nesting_exceeds(text, limits::value(limits::kJsonDepth))) {
      throw ManifestFault(limits::exceeded("its JSON nesting", limits::kJsonDepth));
    }
    document.Parse(text.c_str(), text.size());
    if (document.HasParseError()) {
      throw ManifestFault("invalid JSON at " + line_and_column(text, document.GetErrorOffset()) +
                          ": " + rapidjson::GetParseError_En(document.GetParseError()));
    }
    if (!document.IsObject()) {
      fail("$", std::string("expected a JSON object, found ") + type_name(document));
    }
    refuse_misspelt_members(document, text, "", {"file_format_version", "plugin", "provides"});
    check_file_format_version(document);
    if (const rapidjson::Value* plugin_value = member(document, "plugin")) {
      plugin = parse_plugin(*plugin_value, manifest_path);
    }
    const rapidjson::Value* provides = member(document, "provides");
    if (provides == nullptr) fail("provides", "missing; list what this manifest provides");
    if (!provides->IsArray()) {
      fail("provides", std::string("expected an array, found ") + type_name(*provides));
    }
  } catch (const ManifestFault& fault) {
    problem(fault.what());
    return contents;
  }
  const rapidjson::Value& provides = document["provides"];
  for (rapidjson::SizeType i = 0; i < provides.Size(); ++i) {
    const std::string json_path = "provides[" + std::to_string(i) + "]";
    try {
      Entry entry = parse_entry(provides[i], text, json_path, plugin, manifest_path.string());
      const auto duplicate = std::find_if(
          contents.entries.begin(), contents.entries.end(),
          [&](const Entry& seen) { return seen.group == entry.group && seen.name == entry.name; });
      if (duplicate != contents.entries.end()) {
        fail(json_path, std::string(to_string(entry.group)) + " '" + entry.name +
                            "' is listed twice in this manifest; remove one");
      }
      if (entry.plugin) plugin->provides.emplace_back(entry.group, entry.name);
      contents.entries.push_back(std::move(entry));
    } catch (const ManifestFault& fault) {
      problem(fault.what());
    }
  }
  return contents;
}

}  // namespace sortie::registry::detail
