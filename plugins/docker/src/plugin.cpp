// The entry point of the docker plugin: the local_docker scheduler, the docker image provider that
// lays the workspace over a role's image, and the packagers of XManager's container executables.
#include <sortie/version.h>

#include <sortie/plugin.hpp>

#include "container_packager.hpp"
#include "docker_scheduler.hpp"
#include "dockerfile_packager.hpp"
#include "image_provider.hpp"
#include "python_container_packager.hpp"

using sortie::docker::ContainerPackager;
using sortie::docker::DockerfilePackager;
using sortie::docker::DockerImageProvider;
using sortie::docker::DockerScheduler;
using sortie::docker::PythonContainerPackager;

SORTIE_PLUGIN("sortie_docker", SORTIE_VERSION,
              SORTIE_SCHEDULER("local_docker",
                               "Runs each replica as a Docker container on this host's Engine",
                               DockerScheduler),
              SORTIE_IMAGE_PROVIDER("docker",
                                    "Image = the working directory built over role.image "
                                    "(honours .dockerignore; cached by content hash)",
                                    DockerImageProvider),
              SORTIE_PACKAGER("container",
                              "An image reference (pulled when missing) or a docker save archive "
                              "(loaded)",
                              ContainerPackager),
              SORTIE_PACKAGER("dockerfile",
                              "Builds a Dockerfile and its context (cached by content hash)",
                              DockerfilePackager),
              SORTIE_PACKAGER("python_container",
                              "Builds a Python project over a base image with a generated "
                              "Dockerfile (cached by content hash)",
                              PythonContainerPackager));
