// The run options of the kubernetes scheduler: their sortie.runopts/1 description and the typed
// values read from a dryrun input's "cfg".
#ifndef SORTIE_KUBERNETES_RUN_OPTIONS_HPP
#define SORTIE_KUBERNETES_RUN_OPTIONS_HPP

#include <string>
#include <string_view>
#include <vector>

#include "kubeconfig.hpp"

namespace sortie::kubernetes {

// How an app's roles become Kubernetes objects.
enum class Gang {
  kNone,     // a batch/v1 Job per role and a headless Service: the default kube-scheduler
  kVolcano,  // one batch.volcano.sh/v1alpha1 Job, a task per replica (TorchX's layout)
  kJobSet,   // one jobset.x-k8s.io/v1alpha2 JobSet, a replicated Job per role
};

const char* gang_name(Gang gang);

struct KubernetesOptions {
  ConnectionChoice connection;
  std::string namespace_name;  // empty: the context's
  Gang gang = Gang::kNone;
  std::string queue;  // Volcano queue, or Kueue LocalQueue for Jobs and JobSets
  std::string service_account;
  std::string priority_class;
  std::vector<std::string> image_pull_secrets;
  std::string image_repo;  // "": locally built images are refused
};

std::string run_options_payload();

// Reads the dryrun input's cfg_json (absent members take their defaults). Unknown options, wrong
// types and invalid names are INVALID_ARGUMENT errors naming the option.
KubernetesOptions parse_run_options(std::string_view cfg_json);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_RUN_OPTIONS_HPP
