#include "package_request.hpp"

#include <rapidjson/document.h>

#include <sortie/plugin.hpp>

#include "label.hpp"

namespace sortie::bazel {
namespace {

[[noreturn]] void invalid(const std::string& message) { throw Error::invalid_argument(message); }

rapidjson::Document parse_object(std::string_view text, const std::string& what) {
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  if (document.HasParseError() || !document.IsObject()) {
    invalid(what + " is not a JSON object");
  }
  return document;
}

// The string member `name`, "" when absent; throws when present with another type.
std::string string_member(const rapidjson::Value& object, const char* name,
                          const std::string& what) {
  const auto member = object.FindMember(name);
  if (member == object.MemberEnd() || member->value.IsNull()) return "";
  if (!member->value.IsString()) invalid(what + ": member '" + name + "' must be a string");
  return std::string(member->value.GetString(), member->value.GetStringLength());
}

std::vector<std::string> string_list_member(const rapidjson::Value& object, const char* name,
                                            const std::string& what) {
  std::vector<std::string> items;
  const auto member = object.FindMember(name);
  if (member == object.MemberEnd() || member->value.IsNull()) return items;
  if (!member->value.IsArray()) invalid(what + ": member '" + name + "' must be a list");
  for (const rapidjson::Value& item : member->value.GetArray()) {
    if (!item.IsString()) invalid(what + ": every item of '" + name + "' must be a string");
    items.emplace_back(item.GetString(), item.GetStringLength());
  }
  return items;
}

BazelExecutable read_executable(const rapidjson::Value& element, size_t index,
                                std::string_view packager) {
  const std::string position = "executable #" + std::to_string(index);
  if (!element.IsObject()) invalid("sortie.package_request/1: " + position + " is not an object");
  const std::string name = string_member(element, "name", position);
  BazelExecutable executable;
  executable.kind = string_member(element, "kind", position);
  const std::string who = name.empty() ? position : "executable '" + name + "'";
  const std::string described = who + " (" + executable.kind + ")";
  if (executable.kind != kBinaryKind && executable.kind != kContainerKind) {
    invalid(described + ": kind '" + executable.kind + "' reached the " + std::string(packager) +
            " packager, which packages only bazel_binary and bazel_container");
  }
  for (const auto& member : element.GetObject()) {
    const std::string_view key(member.name.GetString(), member.name.GetStringLength());
    if (key != "kind" && key != "name" && key != "label" && key != "bazel_args") {
      invalid(described + ": member '" + std::string(key) + "' has no meaning for kind " +
              executable.kind + " (its members: name, label, bazel_args); remove it");
    }
  }
  const std::string label = string_member(element, "label", described);
  if (label.empty()) invalid(described + ": member 'label' is required (//pkg:target)");
  try {
    executable.label = canonical_label(label);
  } catch (const Error& error) {
    invalid(described + ": " + error.what());
  }
  executable.bazel_args = string_list_member(element, "bazel_args", described);
  executable.described = who + " (" + executable.kind + ", " + executable.label + ")";
  return executable;
}

}  // namespace

PackagerConfig read_packager_config(std::string_view config, std::string_view packager) {
  const std::string what = "sortie.packager_config/1";
  const rapidjson::Document document = parse_object(config, what);
  PackagerConfig result;
  result.name = string_member(document, "name", what);
  if (result.name.empty()) result.name = std::string(packager);
  result.state_dir = string_member(document, "state_dir", what);
  if (!result.state_dir.empty() && result.state_dir[0] != '/') {
    invalid(result.name + " packager: " + what + " member 'state_dir' must be an absolute path");
  }
  return result;
}

PackageRequest read_package_request(std::string_view text, std::string_view packager) {
  const std::string what = "sortie.package_request/1";
  const rapidjson::Document document = parse_object(text, what);
  PackageRequest request;
  request.launch_dir = string_member(document, "launch_dir", what);
  if (request.launch_dir.empty() || request.launch_dir[0] != '/') {
    invalid(what + ": member 'launch_dir' must be an absolute directory (the " +
            std::string(packager) + " packager builds in the Bazel workspace holding it)");
  }
  const auto executables = document.FindMember("executables");
  if (executables == document.MemberEnd() || !executables->value.IsArray()) {
    invalid(what + ": member 'executables' must be a list");
  }
  size_t index = 0;
  for (const rapidjson::Value& element : executables->value.GetArray()) {
    request.executables.push_back(read_executable(element, index++, packager));
  }
  return request;
}

}  // namespace sortie::bazel
