#include "run_options.hpp"

#include <sortie/http_client.hpp>
#include <sortie/plugin.hpp>
#include <sortie/run_options.hpp>

namespace sortie::vertex {
namespace {

// Sensitive (P-5): the options that run a program, choose credentials or where they are sent.
constexpr RunOptionSpec kOptions[] = {
    {"project", "str", "null", "Google Cloud project id the CustomJob is created in",
     RunOptionEffect::kNone, kRunOptionRequired},
    {"location", "str", "\"us-central1\"", "Vertex AI region", RunOptionEffect::kNone},
    {"endpoint", "str", "null",
     "API base URL (default: https://{location}-aiplatform.googleapis.com)",
     RunOptionEffect::kSendsData},
    {"display_name", "str", "null", "CustomJob displayName (default: the app id)",
     RunOptionEffect::kNone},
    {"service_account", "str", "null",
     "service account the replicas run as (jobSpec.serviceAccount); kept for TPU jobs too",
     RunOptionEffect::kWidensPrivilege},
    {"network", "str", "null",
     "VPC network to peer, projects/{project_number}/global/networks/{network}",
     RunOptionEffect::kSendsData},
    {"labels", "dict", "null",
     "CustomJob labels, added to sortie-session and sortie-app (lower-case, at most 63 chars)",
     RunOptionEffect::kNone},
    {"base_output_dir", "str", "null",
     "gs:// prefix for job output (jobSpec.baseOutputDirectory; sets AIP_MODEL_DIR etc.)",
     RunOptionEffect::kSendsData},
    {"tensorboard", "str", "null",
     "TensorBoard resource name, projects/{p}/locations/{l}/tensorboards/{id}",
     RunOptionEffect::kSendsData},
    {"timeout_seconds", "int", "null",
     "stop the job after this many seconds (scheduling.timeout; Vertex default 7 days)",
     RunOptionEffect::kNone},
    {"restart_job_on_worker_restart", "bool", "false",
     "restart every replica when one worker restarts (scheduling.restartJobOnWorkerRestart)",
     RunOptionEffect::kNone},
    {"enable_web_access", "bool", "false", "interactive shell access to the replicas",
     RunOptionEffect::kWidensPrivilege},
    {"boot_disk_type", "str", "null", "boot disk of every replica: pd-ssd or pd-standard",
     RunOptionEffect::kNone},
    {"boot_disk_size_gb", "int", "null", "boot disk size of every replica in GB",
     RunOptionEffect::kNone},
    {"machine_type", "str", "null",
     "machine type of every role without vertex.machine_type (default: from the tables)",
     RunOptionEffect::kNone},
    {"accelerator", "str", "null",
     "accelerator of every role without vertex.accelerator: t4, p4, p100, v100, a100, "
     "a100_80gb, l4, h100, h100_mega, h200, b200, tpu_v2, tpu_v3, tpu_v4, tpu_v5e or a Vertex "
     "AcceleratorType",
     RunOptionEffect::kNone},
    {"accelerator_count", "int", "null",
     "accelerators per replica (default: resource.gpu, or the smallest TPU slice)",
     RunOptionEffect::kNone},
    {"tpu_topology", "str", "null", "TPU slice topology, e.g. 4x4 (tpuTopology)",
     RunOptionEffect::kNone},
    {"push_image_tag", "str", "null",
     "push each role's local image to this tag through the Docker Engine before submitting, "
     "and run that, e.g. us-docker.pkg.dev/p/repo/${role_name}:${app_id} (role metadata "
     "vertex.push_image_tag overrides it)",
     RunOptionEffect::kSendsData},
    {"push_timeout", "float", "1800.0", "seconds one image push may take", RunOptionEffect::kNone},
    {"service_account_key_file", "str", "null",
     "service-account JSON key: sign a JWT and exchange it at the key's token_uri",
     RunOptionEffect::kSendsData},
    {"access_token_command", "str", "\"gcloud auth print-access-token\"",
     "command printing an access token, used when neither GOOGLE_OAUTH_ACCESS_TOKEN nor "
     "service_account_key_file is set",
     RunOptionEffect::kRunsProgram},
    {"retries", "int", "5",
     "retries of a request answered 429 or 5xx (create: 429 and 503 only), with back-off",
     RunOptionEffect::kNone},
    {"retry_base_delay", "float", "1.0",
     "seconds before the first retry; doubles each time (a Retry-After header wins)",
     RunOptionEffect::kNone},
    {"request_timeout", "float", "60.0", "seconds one API request may take",
     RunOptionEffect::kNone},
};

bool is_label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

}  // namespace

image_push::PushOrigin push_origin() {
  return {"vertex", "push_image_tag", "the Vertex AI access token"};
}

std::string run_options_payload() { return write_run_options(kOptions); }

void check_label(const std::string& key, const std::string& value, const std::string& what) {
  bool valid_key = !key.empty() && key.size() <= 63 && key[0] >= 'a' && key[0] <= 'z';
  for (const char c : key) valid_key = valid_key && is_label_char(c);
  bool valid_value = value.size() <= 63;
  for (const char c : value) valid_value = valid_value && is_label_char(c);
  if (!valid_key || !valid_value) {
    throw Error::invalid_argument(
        what + ": label '" + key + "=" + value +
        "' is not valid on Vertex AI: keys and values hold at most 63 lower-case "
        "letters, digits, '_' or '-', and keys start with a letter");
  }
}

VertexOptions parse_run_options(std::string_view cfg_json) {
  const TypedRunOptions values = read_run_options(cfg_json, kOptions, "vertex");
  VertexOptions options;
  options.project = values.str("project", "");
  options.location = values.str("location");
  for (const char c : options.location) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      throw Error::invalid_argument("run option 'location' '" + options.location +
                                    "' is not a Vertex AI region such as us-central1");
    }
  }
  options.endpoint = values.str("endpoint", "");
  while (!options.endpoint.empty() && options.endpoint.back() == '/') options.endpoint.pop_back();
  // The access token goes there: plain http only to this machine (a test server).
  if (!options.endpoint.empty() && !http::may_carry_credentials(options.endpoint)) {
    throw Error::invalid_argument(
        "run option 'endpoint' must be a URL starting with https:// (or http:// to 127.0.0.1 or "
        "localhost), since the access token is sent there (got '" +
        options.endpoint + "')");
  }
  options.display_name = values.str("display_name", "");
  options.service_account = values.str("service_account", "");
  options.network = values.str("network", "");
  for (const auto& [key, value] : values.string_map("labels")) {
    check_label(key, value, "run option 'labels'");
    options.labels[key] = value;
  }
  options.base_output_dir = values.str("base_output_dir", "");
  if (!options.base_output_dir.empty() && options.base_output_dir.rfind("gs://", 0) != 0) {
    throw Error::invalid_argument("run option 'base_output_dir' must be a gs:// URI (got '" +
                                  options.base_output_dir + "')");
  }
  options.tensorboard = values.str("tensorboard", "");
  if (!options.tensorboard.empty() &&
      (options.tensorboard.rfind("projects/", 0) != 0 ||
       options.tensorboard.find("/tensorboards/") == std::string::npos)) {
    throw Error::invalid_argument(
        "run option 'tensorboard' must be a resource name "
        "projects/{project}/locations/{location}/tensorboards/{id} (got '" +
        options.tensorboard + "'); look the id up with `gcloud ai tensorboards list`");
  }
  // Vertex AI refuses a CustomJob with a TensorBoard but no service account to write it as.
  if (!options.tensorboard.empty() && options.service_account.empty()) {
    throw Error::invalid_argument(
        "run option 'tensorboard' needs run option 'service_account': Vertex AI writes a job's "
        "TensorBoard as the job's service account and refuses the job without one; set it "
        "with -cfg service_account=NAME@PROJECT.iam.gserviceaccount.com or in a trusted "
        ".sortieconfig [vertex] (XManager's is xmanager@PROJECT.iam.gserviceaccount.com)");
  }
  options.timeout_seconds = values.integer("timeout_seconds", 0);
  if (options.timeout_seconds < 0) {
    throw Error::invalid_argument("run option 'timeout_seconds' must be positive");
  }
  options.restart_job_on_worker_restart = values.boolean("restart_job_on_worker_restart");
  options.enable_web_access = values.boolean("enable_web_access");
  options.boot_disk_type = values.str("boot_disk_type", "");
  if (!options.boot_disk_type.empty() && options.boot_disk_type != "pd-ssd" &&
      options.boot_disk_type != "pd-standard") {
    throw Error::invalid_argument(
        "run option 'boot_disk_type' must be pd-ssd or "
        "pd-standard (got '" +
        options.boot_disk_type + "')");
  }
  options.boot_disk_size_gb = values.integer("boot_disk_size_gb", 0);
  if (options.boot_disk_size_gb < 0 || options.boot_disk_size_gb > 2147483647) {
    throw Error::invalid_argument("run option 'boot_disk_size_gb' must be positive");
  }
  options.machine_type = values.str("machine_type", "");
  options.accelerator = values.str("accelerator", "");
  options.accelerator_count = values.integer("accelerator_count", -1);
  if (values.has("accelerator_count") && options.accelerator_count < 1) {
    throw Error::invalid_argument("run option 'accelerator_count' must be at least 1");
  }
  options.tpu_topology = values.str("tpu_topology", "");
  options.push_image_tag = values.str("push_image_tag", "");
  options.push_timeout_s = values.number("push_timeout");
  if (options.push_timeout_s <= 0) {
    throw Error::invalid_argument("run option 'push_timeout' must be positive");
  }
  options.service_account_key_file = values.str("service_account_key_file", "");
  options.access_token_command = values.str("access_token_command");
  options.retries = values.integer("retries");
  if (options.retries < 0 || options.retries > 20) {
    throw Error::invalid_argument("run option 'retries' must be between 0 and 20");
  }
  options.retry_base_delay_s = values.number("retry_base_delay");
  if (options.retry_base_delay_s < 0 || options.retry_base_delay_s > 60) {
    throw Error::invalid_argument("run option 'retry_base_delay' must be between 0 and 60 seconds");
  }
  options.request_timeout_s = values.number("request_timeout");
  if (options.request_timeout_s <= 0) {
    throw Error::invalid_argument("run option 'request_timeout' must be positive");
  }
  return options;
}

std::string endpoint_url(const VertexOptions& options) {
  return options.endpoint.empty() ? "https://" + options.location + "-aiplatform.googleapis.com"
                                  : options.endpoint;
}

}  // namespace sortie::vertex
