#include "run_options.hpp"

#include <sortie/http_client.hpp>
#include <sortie/plugin.hpp>

#include "json_fields.hpp"

namespace sortie::vertex {
namespace {

struct OptionSpec {
  const char* name;
  const char* type;
  const char* default_json;
  bool required;
  const char* help;
};

constexpr OptionSpec kOptions[] = {
    {"project", "str", "null", true, "Google Cloud project id the CustomJob is created in"},
    {"location", "str", "\"us-central1\"", false, "Vertex AI region"},
    {"endpoint", "str", "null", false,
     "API base URL (default: https://{location}-aiplatform.googleapis.com)"},
    {"display_name", "str", "null", false, "CustomJob displayName (default: the app id)"},
    {"service_account", "str", "null", false,
     "service account the replicas run as (jobSpec.serviceAccount); kept for TPU jobs too"},
    {"network", "str", "null", false,
     "VPC network to peer, projects/{project_number}/global/networks/{network}"},
    {"labels", "dict", "null", false,
     "CustomJob labels, added to sortie-session and sortie-app (lower-case, at most 63 chars)"},
    {"base_output_dir", "str", "null", false,
     "gs:// prefix for job output (jobSpec.baseOutputDirectory; sets AIP_MODEL_DIR etc.)"},
    {"tensorboard", "str", "null", false,
     "TensorBoard resource name, projects/{p}/locations/{l}/tensorboards/{id}"},
    {"timeout_seconds", "int", "null", false,
     "stop the job after this many seconds (scheduling.timeout; Vertex default 7 days)"},
    {"restart_job_on_worker_restart", "bool", "false", false,
     "restart every replica when one worker restarts (scheduling.restartJobOnWorkerRestart)"},
    {"enable_web_access", "bool", "false", false, "interactive shell access to the replicas"},
    {"boot_disk_type", "str", "null", false, "boot disk of every replica: pd-ssd or pd-standard"},
    {"boot_disk_size_gb", "int", "null", false, "boot disk size of every replica in GB"},
    {"machine_type", "str", "null", false,
     "machine type of every role without vertex.machine_type (default: from the tables)"},
    {"accelerator", "str", "null", false,
     "accelerator of every role without vertex.accelerator: t4, p4, p100, v100, a100, "
     "a100_80gb, l4, h100, h100_mega, h200, b200, tpu_v2, tpu_v3, tpu_v4, tpu_v5e or a Vertex "
     "AcceleratorType"},
    {"accelerator_count", "int", "null", false,
     "accelerators per replica (default: resource.gpu, or the smallest TPU slice)"},
    {"tpu_topology", "str", "null", false, "TPU slice topology, e.g. 4x4 (tpuTopology)"},
    {"push_image_tag", "str", "null", false,
     "push each role's local image to this tag through the Docker Engine before submitting, "
     "and run that, e.g. us-docker.pkg.dev/p/repo/${role_name}:${app_id} (role metadata "
     "vertex.push_image_tag overrides it)"},
    {"push_timeout", "float", "1800.0", false, "seconds one image push may take"},
    {"service_account_key_file", "str", "null", false,
     "service-account JSON key: sign a JWT and exchange it at the key's token_uri"},
    {"access_token_command", "str", "\"gcloud auth print-access-token\"", false,
     "command printing an access token, used when neither GOOGLE_OAUTH_ACCESS_TOKEN nor "
     "service_account_key_file is set"},
    {"retries", "int", "5", false,
     "retries of a request answered 429 or 5xx (create: 429 and 503 only), with back-off"},
    {"retry_base_delay", "float", "1.0", false,
     "seconds before the first retry; doubles each time (a Retry-After header wins)"},
    {"request_timeout", "float", "60.0", false, "seconds one API request may take"},
};

bool is_label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

std::string required_string(const rapidjson::Value& cfg, const char* key) {
  std::string value = string_member(cfg, key, "run option");
  if (value.empty()) {
    throw Error::invalid_argument(std::string("run option '") + key +
                                  "' is required by the vertex scheduler; pass -cfg " + key +
                                  "=... or set it in .sortieconfig");
  }
  return value;
}

// Options that run a program, choose credentials or where they are sent (P-5 "sensitive").
bool is_sensitive(std::string_view name) {
  return name == "endpoint" || name == "service_account_key_file" || name == "access_token_command";
}

}  // namespace

std::string run_options_payload() {
  std::string out = R"({"schema":"sortie.runopts/1","options":[)";
  bool first = true;
  for (const OptionSpec& option : kOptions) {
    rapidjson::Document help_doc;
    help_doc.SetString(option.help, help_doc.GetAllocator());
    out += std::string(first ? "" : ",") + R"({"name":")" + option.name + R"(","type":")" +
           option.type + R"(","default":)" + option.default_json + R"(,"required":)" +
           (option.required ? "true" : "false") +
           (is_sensitive(option.name) ? R"(,"sensitive":true)" : "") + R"(,"help":)" +
           to_json_text(help_doc) + "}";
    first = false;
  }
  return out + "]}";
}

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

VertexOptions parse_run_options(const rapidjson::Value* cfg) {
  if (cfg == nullptr || !cfg->IsObject()) {
    throw Error::invalid_argument(
        "run option 'project' is required by the vertex scheduler; pass -cfg project=...");
  }
  for (const auto& member : cfg->GetObject()) {
    const std::string name(member.name.GetString(), member.name.GetStringLength());
    bool known = false;
    for (const OptionSpec& option : kOptions) known = known || name == option.name;
    if (!known) {
      throw Error::invalid_argument(
          "run option '" + name +
          "' is not supported by the vertex scheduler; see `sortie runopts vertex`");
    }
  }
  const std::string what = "run option";
  VertexOptions options;
  options.project = required_string(*cfg, "project");
  options.location = string_member(*cfg, "location", what, options.location);
  for (const char c : options.location) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      throw Error::invalid_argument("run option 'location' '" + options.location +
                                    "' is not a Vertex AI region such as us-central1");
    }
  }
  options.endpoint = string_member(*cfg, "endpoint", what);
  while (!options.endpoint.empty() && options.endpoint.back() == '/') options.endpoint.pop_back();
  // The access token goes there: plain http only to this machine (a test server).
  if (!options.endpoint.empty() && !http::may_carry_credentials(options.endpoint)) {
    throw Error::invalid_argument(
        "run option 'endpoint' must be a URL starting with https:// (or http:// to 127.0.0.1 or "
        "localhost), since the access token is sent there (got '" +
        options.endpoint + "')");
  }
  options.display_name = string_member(*cfg, "display_name", what);
  options.service_account = string_member(*cfg, "service_account", what);
  options.network = string_member(*cfg, "network", what);
  if (const rapidjson::Value* labels = object_member(*cfg, "labels", what)) {
    for (const auto& entry : labels->GetObject()) {
      if (!entry.value.IsString()) {
        throw Error::invalid_argument("run option 'labels' must map strings to strings");
      }
      const std::string key(entry.name.GetString(), entry.name.GetStringLength());
      const std::string value(entry.value.GetString(), entry.value.GetStringLength());
      check_label(key, value, "run option 'labels'");
      options.labels[key] = value;
    }
  }
  options.base_output_dir = string_member(*cfg, "base_output_dir", what);
  if (!options.base_output_dir.empty() && options.base_output_dir.rfind("gs://", 0) != 0) {
    throw Error::invalid_argument("run option 'base_output_dir' must be a gs:// URI (got '" +
                                  options.base_output_dir + "')");
  }
  options.tensorboard = string_member(*cfg, "tensorboard", what);
  if (!options.tensorboard.empty() &&
      (options.tensorboard.rfind("projects/", 0) != 0 ||
       options.tensorboard.find("/tensorboards/") == std::string::npos)) {
    throw Error::invalid_argument(
        "run option 'tensorboard' must be a resource name "
        "projects/{project}/locations/{location}/tensorboards/{id} (got '" +
        options.tensorboard + "'); look the id up with `gcloud ai tensorboards list`");
  }
  options.timeout_seconds = int_member(*cfg, "timeout_seconds", what, 0);
  if (options.timeout_seconds < 0) {
    throw Error::invalid_argument("run option 'timeout_seconds' must be positive");
  }
  options.restart_job_on_worker_restart =
      bool_member(*cfg, "restart_job_on_worker_restart", what, false);
  options.enable_web_access = bool_member(*cfg, "enable_web_access", what, false);
  options.boot_disk_type = string_member(*cfg, "boot_disk_type", what);
  if (!options.boot_disk_type.empty() && options.boot_disk_type != "pd-ssd" &&
      options.boot_disk_type != "pd-standard") {
    throw Error::invalid_argument(
        "run option 'boot_disk_type' must be pd-ssd or "
        "pd-standard (got '" +
        options.boot_disk_type + "')");
  }
  options.boot_disk_size_gb = int_member(*cfg, "boot_disk_size_gb", what, 0);
  if (options.boot_disk_size_gb < 0 || options.boot_disk_size_gb > 2147483647) {
    throw Error::invalid_argument("run option 'boot_disk_size_gb' must be positive");
  }
  options.machine_type = string_member(*cfg, "machine_type", what);
  options.accelerator = string_member(*cfg, "accelerator", what);
  options.accelerator_count = int_member(*cfg, "accelerator_count", what, -1);
  if (find_member(*cfg, "accelerator_count") != nullptr && options.accelerator_count < 1) {
    throw Error::invalid_argument("run option 'accelerator_count' must be at least 1");
  }
  options.tpu_topology = string_member(*cfg, "tpu_topology", what);
  options.push_image_tag = string_member(*cfg, "push_image_tag", what);
  options.push_timeout_s = number_member(*cfg, "push_timeout", what, options.push_timeout_s);
  if (options.push_timeout_s <= 0) {
    throw Error::invalid_argument("run option 'push_timeout' must be positive");
  }
  options.service_account_key_file = string_member(*cfg, "service_account_key_file", what);
  options.access_token_command =
      string_member(*cfg, "access_token_command", what, options.access_token_command);
  options.retries = int_member(*cfg, "retries", what, options.retries);
  if (options.retries < 0 || options.retries > 20) {
    throw Error::invalid_argument("run option 'retries' must be between 0 and 20");
  }
  options.retry_base_delay_s =
      number_member(*cfg, "retry_base_delay", what, options.retry_base_delay_s);
  if (options.retry_base_delay_s < 0 || options.retry_base_delay_s > 60) {
    throw Error::invalid_argument("run option 'retry_base_delay' must be between 0 and 60 seconds");
  }
  options.request_timeout_s =
      number_member(*cfg, "request_timeout", what, options.request_timeout_s);
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
