#include "packaging.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
#include <map>
#include <optional>
#include <sortie/model/error.hpp>
#include <sortie/session/json_text.hpp>

namespace sortie::xm::detail {
namespace {

using session::JsonText;

void write_strings(JsonText& json, const std::vector<std::string>& items) {
  json.begin_array();
  for (const std::string& item : items) json.string(item);
  json.end_array();
}

// The members of one request element (P-13) for `spec`, without the braces.
void write_spec_members(JsonText& json, const ExecutableSpec& spec) {
  json.key("kind").string(kind_of(spec));
  if (const auto* binary = std::get_if<Binary>(&spec)) {
    json.key("path").string(binary->path);
  } else if (const auto* bazel = std::get_if<BazelBinary>(&spec)) {
    json.key("label").string(bazel->label).key("bazel_args");
    write_strings(json, bazel->bazel_args);
  } else if (const auto* container = std::get_if<Container>(&spec)) {
    json.key("image_path").string(container->image_path);
  } else if (const auto* bazel_container = std::get_if<BazelContainer>(&spec)) {
    json.key("label").string(bazel_container->label).key("bazel_args");
    write_strings(json, bazel_container->bazel_args);
  } else if (const auto* python = std::get_if<PythonContainer>(&spec)) {
    json.key("path").string(python->path).key("entrypoint").begin_object();
    if (!python->module.empty()) {
      json.key("module").string(python->module);
    } else {
      json.key("commands");
      write_strings(json, python->commands);
    }
    json.end_object().key("base_image");
    python->base_image.empty() ? json.null() : json.string(python->base_image);
    json.key("docker_instructions");
    if (python->docker_instructions) {
      write_strings(json, *python->docker_instructions);
    } else {
      json.null();
    }
    json.key("use_deep_module").boolean(python->use_deep_module);
  } else if (const auto* dockerfile = std::get_if<Dockerfile>(&spec)) {
    json.key("path").string(dockerfile->path).key("dockerfile");
    dockerfile->dockerfile.empty() ? json.null() : json.string(dockerfile->dockerfile);
  }
}

// One executable still to package: its request element (P-13) and where its result goes.
struct Pending {
  size_t index;
  std::string kind;
  std::string element_json;
};

std::string member_string(const rapidjson::Value& object, const char* name) {
  const auto it = object.FindMember(name);
  return it != object.MemberEnd() && it->value.IsString() ? it->value.GetString() : "";
}

Args string_args(const rapidjson::Value& object) {
  Args args;
  if (const auto it = object.FindMember("args"); it != object.MemberEnd() && it->value.IsArray()) {
    for (const auto& item : it->value.GetArray()) {
      if (item.IsString()) args.add_positional(std::string(item.GetString()));
    }
  }
  return args;
}

EnvVars string_env(const rapidjson::Value& object) {
  EnvVars env;
  if (const auto it = object.FindMember("env"); it != object.MemberEnd() && it->value.IsObject()) {
    for (const auto& entry : it->value.GetObject()) {
      if (entry.value.IsString()) env[entry.name.GetString()] = entry.value.GetString();
    }
  }
  return env;
}

std::string compact(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return buffer.GetString();
}

// The image reference of a Container bound for a remote executor, which its scheduler pulls
// from the registry; nullopt for anything the local packagers must handle (a `docker save`
// file, another kind, a local destination).
std::optional<std::string> remote_image_reference(const std::string& launch_dir,
                                                  const Packageable& packageable) {
  const auto* container = std::get_if<Container>(&packageable.spec);
  if (!packageable.remote_destination || container == nullptr) return std::nullopt;
  const std::string& image = container->image_path;
  const auto ends_with = [&](std::string_view suffix) {
    return image.size() >= suffix.size() &&
           image.compare(image.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (image.empty() || image[0] == '/' || image[0] == '.' || image[0] == '~' || ends_with(".tar") ||
      ends_with(".tar.gz") || ends_with(".tgz") ||
      std::filesystem::is_regular_file(std::filesystem::path(launch_dir) / image)) {
    return std::nullopt;
  }
  return image;
}

}  // namespace

std::vector<Executable> package_executables(session::Session& ctx, const std::string& launch_dir,
                                            const std::vector<Packageable>& packageables) {
  std::vector<Executable> results(packageables.size());
  std::vector<Pending> pending;
  for (size_t i = 0; i < packageables.size(); ++i) {
    const Packageable& packageable = packageables[i];
    results[i].name = packageable.name.empty() ? default_name(packageable.spec) : packageable.name;
    if (const auto reference = remote_image_reference(launch_dir, packageable)) {
      results[i].kind = "image";
      results[i].image = *reference;
      results[i].digest = *reference;  // what identifies it: the registry resolves it
      continue;
    }
    JsonText element;
    element.begin_object().key("name").string(results[i].name);
    write_spec_members(element, packageable.spec);
    element.end_object();
    pending.push_back({i, kind_of(packageable.spec), element.str()});
  }
  // Each round packages what the previous one handed on; a chain longer than this is a loop.
  constexpr int kMaxRounds = 4;
  for (int round = 0; round < kMaxRounds && !pending.empty(); ++round) {
    std::map<std::string, std::vector<Pending>> by_kind;
    for (Pending& item : pending) by_kind[item.kind].push_back(std::move(item));
    pending.clear();
    for (const auto& [kind, batch] : by_kind) {
      const registry::Entry* entry = ctx.registry().find(registry::Group::kPackagers, kind);
      if (entry == nullptr) {
        throw Error::not_found("executable '" + results[batch.front().index].name +
                               "': no plugin provides packager '" + kind +
                               "' (see `sortie plugins list`)");
      }
      JsonText request;
      request.begin_object()
          .key("schema")
          .string("sortie.package_request/1")
          .key("launch_dir")
          .string(launch_dir)
          .key("executables")
          .begin_array();
      for (const Pending& item : batch) request.raw(item.element_json);
      request.end_array().end_object();
      const auto packager = ctx.plugin_host().packager(*entry, ctx.packager_config(kind));
      const std::string answer = packager->package(request.str());
      rapidjson::Document result;
      result.Parse(answer.data(), answer.size());
      const auto packaged = result.FindMember("packaged");
      if (packaged == result.MemberEnd() || !packaged->value.IsArray() ||
          packaged->value.Size() != batch.size()) {
        throw Error::internal(packager->context() + ": package result must list " +
                              std::to_string(batch.size()) + " packaged executables in 'packaged'");
      }
      for (size_t k = 0; k < batch.size(); ++k) {
        const rapidjson::Value& item = packaged->value[static_cast<rapidjson::SizeType>(k)];
        Executable& out = results[batch[k].index];
        const std::string result_kind = item.IsObject() ? member_string(item, "kind") : "";
        if (result_kind == "executable") {
          const auto next = item.FindMember("executable");
          if (next == item.MemberEnd() || !next->value.IsObject() ||
              member_string(next->value, "kind").empty()) {
            throw Error::internal(packager->context() + ": executable '" + out.name +
                                  "': an 'executable' result needs an "
                                  "'executable' object with a 'kind'");
          }
          JsonText element;
          element.begin_object().key("name").string(out.name);
          for (const auto& member : next->value.GetObject()) {
            if (std::string(member.name.GetString()) == "name") continue;
            element.key(member.name.GetString()).raw(compact(member.value));
          }
          element.end_object();
          pending.push_back({batch[k].index, member_string(next->value, "kind"), element.str()});
          continue;
        }
        if (result_kind != "process" && result_kind != "image") {
          throw Error::internal(packager->context() + ": executable '" + out.name +
                                "': unknown packaged kind '" + result_kind +
                                "' (expected process, image or executable)");
        }
        out.kind = result_kind;
        // A Container's registry reference, even when pulled, is not a local image.
        const auto* container = std::get_if<Container>(&packageables[batch[k].index].spec);
        out.built_locally = result_kind == "image" &&
                            !(container && member_string(item, "image") == container->image_path);
        out.entrypoint = member_string(item, "entrypoint");
        out.image = member_string(item, "image");
        out.digest = member_string(item, "digest");
        out.args = string_args(item);
        out.env_vars = string_env(item);
        if (out.kind == "process" && out.entrypoint.empty()) {
          throw Error::internal(packager->context() + ": executable '" + out.name +
                                "': a process result needs an entrypoint");
        }
        if (out.kind == "image" && out.image.empty()) {
          throw Error::internal(packager->context() + ": executable '" + out.name +
                                "': an image result needs an image");
        }
      }
    }
  }
  if (!pending.empty()) {
    throw Error::internal("executable '" + results[pending.front().index].name +
                          "': packagers kept handing it on (" + std::to_string(kMaxRounds) +
                          " rounds); last kind '" + pending.front().kind + "'");
  }
  // The packageable's own args and env come after what the packager baked in.
  for (size_t i = 0; i < packageables.size(); ++i) {
    results[i].args.merge(packageables[i].args);
    for (const auto& [name, value] : packageables[i].env_vars) results[i].env_vars[name] = value;
  }
  return results;
}

}  // namespace sortie::xm::detail
