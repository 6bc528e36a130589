#include "run_options.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <sortie/plugin.hpp>

#include "dns_names.hpp"

namespace sortie::kubernetes {
namespace {

struct OptionSpec {
  const char* name;
  const char* type;
  const char* default_value;  // JSON text
  const char* help;
};

constexpr OptionSpec kOptions[] = {
    {"namespace", "str", "null",
     "namespace of the app's objects (default: the context's, else default)"},
    {"kubeconfig", "str", "null",
     "kubeconfig file(s), ':'-separated (default: $KUBECONFIG, else ~/.kube/config, else the "
     "in-cluster service account)"},
    {"context", "str", "null", "kubeconfig context (default: current-context)"},
    {"gang_scheduler", "str", "\"none\"",
     "none: a batch/v1 Job per role on the default scheduler; volcano: one Volcano Job "
     "(batch.volcano.sh/v1alpha1, gang-scheduled); jobset: one JobSet (jobset.x-k8s.io/v1alpha2)"},
    {"queue", "str", "null",
     "volcano: the Volcano queue (default: default); none/jobset: the Kueue LocalQueue "
     "(label kueue.x-k8s.io/queue-name)"},
    {"service_account", "str", "null", "service account the pods run as"},
    {"priority_class", "str", "null", "PriorityClass of the pods"},
    {"image_pull_secrets", "list", "null", "Secrets holding registry credentials for the images"},
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

std::string run_options_payload() {
  rapidjson::Document document(rapidjson::kObjectType);
  Allocator& allocator = document.GetAllocator();
  set_string(document, "schema", "sortie.runopts/1", allocator);
  Json options(rapidjson::kArrayType);
  for (const OptionSpec& spec : kOptions) {
    Json option(rapidjson::kObjectType);
    set_string(option, "name", spec.name, allocator);
    set_string(option, "type", spec.type, allocator);
    rapidjson::Document default_value(&allocator);
    default_value.Parse(spec.default_value);
    set_member(option, "default", Json(default_value, allocator), allocator);
    set_member(option, "required", Json(false), allocator);
    set_string(option, "help", spec.help, allocator);
    // The kubeconfig and its context choose the credentials and the server they are sent to.
    const std::string_view name = spec.name;
    if (name == "kubeconfig" || name == "context") {
      set_member(option, "sensitive", Json(true), allocator);
    }
    options.PushBack(option, allocator);
  }
  set_member(document, "options", std::move(options), allocator);
  return to_json_text(document);
}

KubernetesOptions parse_run_options(const Json* cfg) {
  KubernetesOptions options;
  if (cfg == nullptr) return options;
  if (!cfg->IsObject()) {
    throw Error::invalid_argument("dryrun input: 'cfg' must be an object");
  }
  for (const auto& member : cfg->GetObject()) {
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    bool known = false;
    for (const OptionSpec& spec : kOptions) known = known || name == spec.name;
    if (!known) {
      throw Error::invalid_argument(
          "run option '" + std::string(name) +
          "' is not supported by the kubernetes scheduler; see `sortie runopts "
          "kubernetes`");
    }
  }
  const std::string what = "run option";
  options.connection.kubeconfig = string_member(*cfg, "kubeconfig", what);
  options.connection.context = string_member(*cfg, "context", what);
  options.namespace_name = string_member(*cfg, "namespace", what);
  check_namespace(options.namespace_name);
  const std::string gang = string_member(*cfg, "gang_scheduler", what, "none");
  if (gang == "volcano") {
    options.gang = Gang::kVolcano;
  } else if (gang == "jobset") {
    options.gang = Gang::kJobSet;
  } else if (gang != "none") {
    throw Error::invalid_argument("run option 'gang_scheduler' = '" + gang +
                                  "': expected none, volcano or jobset");
  }
  options.queue = string_member(*cfg, "queue", what);
  options.service_account = string_member(*cfg, "service_account", what);
  options.priority_class = string_member(*cfg, "priority_class", what);
  if (!is_label_value(options.queue)) {
    throw Error::invalid_argument("run option 'queue' = '" + options.queue +
                                  "' is not a valid queue name (a label value)");
  }
  check_object_name("service_account", options.service_account);
  check_object_name("priority_class", options.priority_class);
  if (const Json* secrets = array_member(*cfg, "image_pull_secrets", what)) {
    for (const Json& secret : secrets->GetArray()) {
      if (!secret.IsString()) {
        throw Error::invalid_argument("run option 'image_pull_secrets' must list names");
      }
      options.image_pull_secrets.emplace_back(secret.GetString(), secret.GetStringLength());
      check_object_name("image_pull_secrets", options.image_pull_secrets.back());
    }
  }
  return options;
}

}  // namespace sortie::kubernetes
