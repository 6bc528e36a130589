#include "run_options.hpp"

#include <sortie/plugin.hpp>
#include <sortie/run_options.hpp>

#include "dns_names.hpp"
#include "image_pushes.hpp"

namespace sortie::kubernetes {
namespace {

// Sensitive (P-5): the kubeconfig and its context choose the credentials and the server they
// are sent to.
constexpr RunOptionSpec kOptions[] = {
    {"namespace", "str", "null",
     "namespace of the app's objects (default: the context's, else default)",
     RunOptionEffect::kNone},
    {"kubeconfig", "str", "null",
     "kubeconfig file(s), ':'-separated (default: $KUBECONFIG, else ~/.kube/config, else the "
     "in-cluster service account)",
     RunOptionEffect::kSendsData},
    {"context", "str", "null", "kubeconfig context (default: current-context)",
     RunOptionEffect::kSendsData},
    {"gang_scheduler", "str", "\"none\"",
     "none: a batch/v1 Job per role on the default scheduler; volcano: one Volcano Job "
     "(batch.volcano.sh/v1alpha1, gang-scheduled); jobset: one JobSet (jobset.x-k8s.io/v1alpha2)",
     RunOptionEffect::kNone},
    {"queue", "str", "null",
     "volcano: the Volcano queue (default: default); none/jobset: the Kueue LocalQueue "
     "(label kueue.x-k8s.io/queue-name)",
     RunOptionEffect::kNone},
    {"service_account", "str", "null", "service account the pods run as",
     RunOptionEffect::kWidensPrivilege},
    {"priority_class", "str", "null", "PriorityClass of the pods",
     RunOptionEffect::kWidensPrivilege},
    {"image_pull_secrets", "list", "null", "Secrets holding registry credentials for the images",
     RunOptionEffect::kSendsData},
    {"image_repo", "str", "null",
     "registry/repository prefix (e.g. 127.0.0.1:5000/team) that images built on this machine "
     "are pushed to, as IMAGE_REPO/<name>:<tag>, before the pods that pull them are created",
     RunOptionEffect::kSendsData},
};

void check_namespace(const std::string& value) {
  if (!value.empty() && !is_dns1123_label(value)) {
    throw Error::invalid_argument(
        "run option 'namespace' = '" + value +
        "' is not a valid namespace (at most 63 of a-z, 0-9 and '-', starting and "
        "ending with a letter or digit)");
  }
}

void check_object_name(const std::string& option, const std::string& value) {
  if (!value.empty() && !is_dns1123_subdomain(value)) {
    throw Error::invalid_argument(
        "run option '" + option + "' = '" + value +
        "' is not a valid Kubernetes object name (lower-case DNS subdomain: a-z, 0-9, "
        "'-' and '.')");
  }
}

}  // namespace

const char* gang_name(Gang gang) {
  switch (gang) {
    case Gang::kVolcano:
      return "volcano";
    case Gang::kJobSet:
      return "jobset";
    case Gang::kNone:
      break;
  }
  return "none";
}

std::string run_options_payload() { return write_run_options(kOptions); }

KubernetesOptions parse_run_options(std::string_view cfg_json) {
  const TypedRunOptions values = read_run_options(cfg_json, kOptions, "kubernetes");
  KubernetesOptions options;
  options.connection.kubeconfig = values.str("kubeconfig", "");
  options.connection.context = values.str("context", "");
  options.namespace_name = values.str("namespace", "");
  check_namespace(options.namespace_name);
  const std::string gang = values.str("gang_scheduler");
  if (gang == "volcano") {
    options.gang = Gang::kVolcano;
  } else if (gang == "jobset") {
    options.gang = Gang::kJobSet;
  } else if (gang != "none") {
    throw Error::invalid_argument("run option 'gang_scheduler' = '" + gang +
                                  "': expected none, volcano or jobset");
  }
  options.queue = values.str("queue", "");
  options.service_account = values.str("service_account", "");
  options.priority_class = values.str("priority_class", "");
  if (!is_label_value(options.queue)) {
    throw Error::invalid_argument("run option 'queue' = '" + options.queue +
                                  "' is not a valid queue name (a label value)");
  }
  check_object_name("service_account", options.service_account);
  check_object_name("priority_class", options.priority_class);
  if (auto secrets = values.strings("image_pull_secrets")) {
    options.image_pull_secrets = std::move(*secrets);
  }
  for (const std::string& secret : options.image_pull_secrets) {
    check_object_name("image_pull_secrets", secret);
  }
  options.image_repo = values.str("image_repo", "");
  if (!options.image_repo.empty()) remote_reference("name", options.image_repo);
  return options;
}

}  // namespace sortie::kubernetes
