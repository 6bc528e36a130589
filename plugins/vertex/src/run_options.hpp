// The run options of the vertex scheduler: their sortie.runopts/1 description and the typed values
// parsed from a dryrun input's "cfg" (docs/vertex-scheduler.md lists them).
#ifndef SORTIE_VERTEX_RUN_OPTIONS_HPP
#define SORTIE_VERTEX_RUN_OPTIONS_HPP

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "image_push.hpp"

namespace sortie::vertex {

// push_image_tag's pushes, as messages name them; Google's registries take the Vertex AI token.
image_push::PushOrigin push_origin();

struct VertexOptions {
  std::string project;
  std::string location = "us-central1";
  std::string endpoint;  // base URL; "" = https://{location}-aiplatform.googleapis.com
  std::string display_name;
  std::string service_account;
  std::string network;
  std::map<std::string, std::string> labels;
  std::string base_output_dir;
  std::string tensorboard;
  int64_t timeout_seconds = 0;  // 0 = Vertex AI's default (7 days)
  bool restart_job_on_worker_restart = false;
  bool enable_web_access = false;
  std::string boot_disk_type;
  int64_t boot_disk_size_gb = 0;  // 0 = Vertex AI's default
  // Defaults for every role without its own vertex.* metadata.
  std::string machine_type;
  std::string accelerator;
  int64_t accelerator_count = -1;
  std::string tpu_topology;
  // Remote tag each role's image is pushed to before the job is created ("" = no push).
  std::string push_image_tag;
  double push_timeout_s = 1800.0;
  // Credentials and transport.
  std::string service_account_key_file;
  std::string access_token_command = "gcloud auth print-access-token";
  int64_t retries = 5;
  double retry_base_delay_s = 1.0;
  double request_timeout_s = 60.0;
};

std::string run_options_payload();

// Parses the dryrun input's cfg_json (absent members take their defaults). Unknown options, wrong
// types and values Vertex AI would refuse (a bad label, a relative base_output_dir) are
// INVALID_ARGUMENT errors naming the option.
VertexOptions parse_run_options(std::string_view cfg_json);

// The endpoint's base URL, e.g. https://us-central1-aiplatform.googleapis.com.
std::string endpoint_url(const VertexOptions& options);

// Refuses a label Vertex AI would reject (keys and values: at most 63 lower-case letters,
// digits, '_' or '-'; keys start with a letter). `what` names where the label came from.
void check_label(const std::string& key, const std::string& value, const std::string& what);

}  // namespace sortie::vertex

#endif  // SORTIE_VERTEX_RUN_OPTIONS_HPP
