// The entry point of the kubernetes plugin.
#include <sortie/version.h>

#include <sortie/plugin.hpp>

#include "kubernetes_scheduler.hpp"

SORTIE_PLUGIN("sortie_kubernetes", SORTIE_VERSION,
              SORTIE_SCHEDULER("kubernetes",
                               "Runs apps on a Kubernetes cluster as Jobs, a Volcano Job or a "
                               "JobSet, through the API server",
                               sortie::kubernetes::KubernetesScheduler));
