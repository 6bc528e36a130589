#include "python_container_packager.hpp"

#include <filesystem>

#include "context_packer.hpp"
#include "engine.hpp"
#include "image_build.hpp"
#include "image_transfer.hpp"
#include "json_fields.hpp"
#include "package_payloads.hpp"
#include "python_container.hpp"

namespace sortie::docker {
namespace {

constexpr const char* kDockerfileInContext = ".sortie-xm.Dockerfile";

// A dotted Python module name; anything else would be run by the shell of entrypoint.sh.
bool is_module_name(const std::string& module) {
  bool at_start = true;
  for (const char c : module) {
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (c == '.') {
      if (at_start) return false;
      at_start = true;
    } else if (letter || (digit && !at_start)) {
      at_start = false;
    } else {
      return false;
    }
  }
  return !module.empty() && !at_start;
}

std::vector<std::string> strings_of(const rapidjson::Value& list, const std::string& what) {
  std::vector<std::string> out;
  for (const rapidjson::Value& item : list.GetArray()) {
    if (!item.IsString()) throw Error::invalid_argument(what + " must list strings");
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

// The spec of one executable, its project directory checked.
PythonContainerSpec read_spec(const rapidjson::Value& executable, const std::string& what,
                              const std::string& project_dir) {
  PythonContainerSpec spec;
  spec.directory = std::filesystem::path(project_dir).filename().string();
  if (spec.directory.empty()) {
    throw Error::invalid_argument("'path' resolves to " + project_dir +
                                  "; point it at a project directory");
  }
  const rapidjson::Value* entrypoint =
      plugins_common::object_member(executable, "entrypoint", what);
  if (entrypoint == nullptr) {
    throw Error(
        Code::kInvalidArgument,
        R"(member 'entrypoint' is required: {"module": "pkg.main"} or {"commands": [...]})");
  }
  spec.module = plugins_common::string_member(*entrypoint, "module", what + " entrypoint");
  if (const rapidjson::Value* commands =
          plugins_common::array_member(*entrypoint, "commands", what + " entrypoint")) {
    spec.commands = strings_of(*commands, "entrypoint 'commands'");
  }
  if (spec.module.empty() == spec.commands.empty()) {
    throw Error::invalid_argument(
        R"('entrypoint' must hold exactly one of "module" and a non-empty "commands")");
  }
  if (!spec.module.empty() && !is_module_name(spec.module)) {
    throw Error::invalid_argument("entrypoint module '" + spec.module +
                                  "' is not a Python module name (like trainer.main)");
  }
  spec.base_image = plugins_common::string_member(executable, "base_image", what);
  if (spec.base_image.empty()) spec.base_image = default_python_base_image();
  check_image_reference(spec.base_image, "base_image");
  if (const rapidjson::Value* instructions =
          plugins_common::array_member(executable, "docker_instructions", what)) {
    spec.docker_instructions = strings_of(*instructions, "'docker_instructions'");
  }
  spec.use_deep_module = plugins_common::bool_member(executable, "use_deep_module", what, false);
  spec.has_requirements = is_regular_file(project_dir + "/requirements.txt");
  return spec;
}

}  // namespace

PythonContainerPackager::PythonContainerPackager(std::string_view config) {
  read_packager_config(config, "python_container");
}

std::string PythonContainerPackager::package(std::string_view request_text) {
  const PackageRequest request(
      request_text, "python_container",
      {"path", "entrypoint", "base_image", "docker_instructions", "use_deep_module"});
  Engine engine(docker_socket_from_environment());
  return package_each(request, [&](size_t index) {
    const rapidjson::Value& executable = request.executable(index);
    const std::string what = request.describe(index);
    const std::string project_dir =
        request.resolve(plugins_common::string_member(executable, "path", what));
    if (!is_directory(project_dir)) {
      throw Error::not_found("project directory " + project_dir +
                             " is not a directory; fix 'path' (relative to " +
                             request.launch_dir() + ")");
    }
    const PythonContainerSpec spec = read_spec(executable, what, project_dir);
    try {
      ensure_image(engine, spec.base_image);
    } catch (const Error& error) {
      throw Error(error.code(), std::string(error.what()) +
                                    "; set 'base_image' (or SORTIE_PYTHON_BASE_IMAGE for the "
                                    "default) to an image the Engine has or can pull");
    }
    const std::string dockerfile = python_container_dockerfile(spec);

    ContextPacker packer;
    packer.add_tree(project_dir, spec.directory);
    packer.add_file("entrypoint.sh", 0755, 0, python_container_entrypoint(spec));
    packer.add_file(kDockerfileInContext, 0644, 0, dockerfile);
    packer.add_file(".dockerignore", 0644, 0,
                    std::string(".dockerignore\n") + kDockerfileInContext + "\n");
    const std::string tag =
        content_image_name(plugins_common::string_member(executable, "name", what, spec.directory),
                           build_digest(engine, dockerfile, packer.hash_input()));
    const BuiltImage built = build_or_reuse(engine, tag, packer, kDockerfileInContext);
    return PackagedImage{tag, built.id, built.cached};
  });
}

}  // namespace sortie::docker
