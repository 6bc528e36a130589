// The Dockerfile and entrypoint.sh the python_container packager generates: XManager's
// PythonContainer template (xmanager/cloud/build_image.py) adapted to offline use. The build
// context holds the project directory under its own name, entrypoint.sh and the Dockerfile:
//
//   FROM <base_image>
//   <docker_instructions, or the defaults: ENV LANG, WORKDIR /workdir (use_deep_module),
//    pip install -r requirements.txt (only when the project has one), COPY <dir>/, WORKDIR>
//   ENV PYTHONUNBUFFERED=1
//   COPY entrypoint.sh /sortie/entrypoint.sh
//   ENTRYPOINT ["/bin/sh", "/sortie/entrypoint.sh"]
//
// Unlike XManager, nothing is fetched from the network unless the project asks for it (no apt-get,
// no pip upgrade), and job arguments are not baked in: they reach the entrypoint as "$@".
#ifndef SORTIE_DOCKER_PYTHON_CONTAINER_HPP
#define SORTIE_DOCKER_PYTHON_CONTAINER_HPP

#include <optional>
#include <string>
#include <vector>

namespace sortie::docker {

inline constexpr const char* kDefaultPythonBaseImage = "python:3.11-slim";
inline constexpr const char* kPythonEntrypointPath = "/sortie/entrypoint.sh";

struct PythonContainerSpec {
  std::string directory;              // the project directory's name: where it sits in the context
  std::string base_image;             // FROM
  std::string module;                 // entrypoint {"module": M}, or
  std::vector<std::string> commands;  // entrypoint {"commands": [...]}
  std::optional<std::vector<std::string>> docker_instructions;  // replace the defaults
  bool use_deep_module = false;   // project at /workdir/<dir>, working directory /workdir
  bool has_requirements = false;  // the project has a requirements.txt
};

// SORTIE_PYTHON_BASE_IMAGE when set, else kDefaultPythonBaseImage.
std::string default_python_base_image();

std::string python_container_dockerfile(const PythonContainerSpec& spec);

// `exec python -m MODULE "$@"`, or the command lines with "$@" appended to the last one unless
// it already passes $@.
std::string python_container_entrypoint(const PythonContainerSpec& spec);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_PYTHON_CONTAINER_HPP
