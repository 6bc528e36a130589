// The entry point of the kubernetes plugin.
#include <sortie/plugin.hpp>

#include "kubernetes_scheduler.hpp"

SORTIE_PLUGIN("kubernetes", "0.1.0",
              SORTIE_SCHEDULER("kubernetes",
                               "Runs apps on a Kubernetes cluster as Jobs, a Volcano Job or a "
                               "JobSet, through the API server",
                               sortie::kubernetes::KubernetesScheduler));
