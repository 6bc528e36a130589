#include "dockerfile_packager.hpp"

#include "context_packer.hpp"
#include "engine.hpp"
#include "image_build.hpp"
#include "json_fields.hpp"
#include "package_payloads.hpp"

namespace sortie::docker {
namespace {

// The Dockerfile travels in the archive under this name, so it may come from outside the context
// and never shadows a context file; the Engine drops it from what COPY sees.
constexpr const char* kDockerfileInContext = ".sortie-xm.Dockerfile";

}  // namespace

DockerfilePackager::DockerfilePackager(std::string_view config) {
  read_packager_config(config, "dockerfile");
}

std::string DockerfilePackager::package(std::string_view request_text) {
  const PackageRequest request(request_text, "dockerfile", {"path", "dockerfile"});
  Engine engine(docker_socket_from_environment());
  return package_each(request, [&](size_t index) {
    const rapidjson::Value& executable = request.executable(index);
    const std::string what = request.describe(index);
    const std::string context_dir =
        request.resolve(plugins_common::string_member(executable, "path", what));
    if (!is_directory(context_dir)) {
      throw Error::not_found("build context " + context_dir +
                             " is not a directory; fix 'path' (relative to " +
                             request.launch_dir() + ")");
    }
    const std::string given = plugins_common::string_member(executable, "dockerfile", what);
    const std::string dockerfile =
        given.empty() ? context_dir + "/Dockerfile" : request.resolve(given);
    if (!is_regular_file(dockerfile)) {
      throw Error::not_found(
          "no Dockerfile at " + dockerfile +
          (given.empty() ? "; create it or set 'dockerfile'"
                         : "; fix 'dockerfile' (relative to " + request.launch_dir() + ")"));
    }
    const std::string text = read_context_file(dockerfile);

    ContextPacker packer;
    packer.add_tree(context_dir, "", {kDockerfileInContext});
    packer.add_file(kDockerfileInContext, 0644, 0, text);
    packer.add_file(".dockerignore", 0644, 0,
                    std::string(".dockerignore\n") + kDockerfileInContext + "\n");
    const std::string tag =
        content_image_name(plugins_common::string_member(executable, "name", what, "dockerfile"),
                           build_digest(engine, text, packer.hash_input()));
    const BuiltImage built = build_or_reuse(engine, tag, packer, kDockerfileInContext);
    return PackagedImage{tag, built.id, built.cached};
  });
}

}  // namespace sortie::docker
