// The entry point of the docker plugin: the local_docker scheduler and the docker image provider
// that lays the workspace over a role's image.
#include <sortie/plugin.hpp>

#include "docker_scheduler.hpp"
#include "image_provider.hpp"

using sortie::docker::DockerImageProvider;
using sortie::docker::DockerScheduler;

SORTIE_PLUGIN("docker", "0.1.0",
              SORTIE_SCHEDULER("local_docker",
                               "Runs each replica as a Docker container on this host's Engine",
                               DockerScheduler),
              SORTIE_IMAGE_PROVIDER("docker",
                                    "Image = the working directory built over role.image "
                                    "(honours .dockerignore; cached by content hash)",
                                    DockerImageProvider));
