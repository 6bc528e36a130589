// The local scheduler's native request: what dryrun() computes and the supervisor executes. It is
// the "request" member of sortie.dryrun/1 and is stored as <app_dir>/request.json.
#ifndef SORTIE_LOCAL_LAUNCH_REQUEST_HPP
#define SORTIE_LOCAL_LAUNCH_REQUEST_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <sortie/app_state.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json_fields.hpp"

namespace sortie::local {

struct ReplicaLaunch {
  uint32_t id = 0;
  std::vector<std::string> argv;
  // Added to (or replacing in) the supervisor's environment, in this order.
  std::vector<std::pair<std::string, std::string>> env;
  std::string cwd;
};

struct RoleLaunch {
  std::string name;
  int64_t max_retries = 0;
  RetryPolicy retry_policy = RetryPolicy::kApplication;
  std::vector<ReplicaLaunch> replicas;
};

struct LaunchRequest {
  std::string app_id;
  std::string app_name;
  std::string session;
  std::string app_dir;
  double cancel_grace_period_s = 10.0;
  // False with the run option env_allow: the supervisor is started with only the SORTIE_*
  // variables, so a replica's environment is those and its `env`, which lists the allowed ones.
  bool inherit_environment = true;
  // Made read-only to the replicas (run option read_only_workdir): the roles' image directories.
  std::vector<std::string> read_only_dirs;
  std::vector<RoleLaunch> roles;
};

// <app_dir>/<role>/<replica>: the replica's log directory.
std::string replica_dir(std::string_view app_dir, std::string_view role, uint32_t replica_id);
// <app_dir>/<role>.<replica>.metrics.jsonl: the replica's $SORTIE_METRICS_FILE, served as the log
// stream "metrics". Beside the replica directories, which exist only once a replica printed.
std::string metrics_file_path(std::string_view app_dir, std::string_view role, uint32_t replica_id);

void write_launch_request(plugins_common::JsonWriter& writer, const LaunchRequest& request);
LaunchRequest read_launch_request(const rapidjson::Value& value, std::string_view what);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_LAUNCH_REQUEST_HPP
