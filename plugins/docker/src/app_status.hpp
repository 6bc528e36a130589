// What an app's containers say about it: each container's inspect answer mapped onto a replica
// status (created / running / restarting / exited(code) / dead / OOM-killed / failed to start),
// the app state derived from its replicas, and the sortie.status/1 rendering.
#ifndef SORTIE_DOCKER_APP_STATUS_HPP
#define SORTIE_DOCKER_APP_STATUS_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <sortie/app_state.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::docker {

struct ReplicaStatus {
  int64_t id = 0;
  std::string state = "PENDING";  // AppState names (payloads.md P-8)
  std::optional<int64_t> exit_code;
  std::optional<int64_t> pid;
  std::string hostname;
  int64_t restarts = 0;
  std::optional<int64_t> started_at;  // ns since the epoch
  std::optional<int64_t> finished_at;
  std::string msg;
  std::string container;        // container name ("" when none exists)
  bool live = false;            // the container is running, restarting or paused
  int64_t stop_timeout_s = 10;  // the container's StopTimeout: its cancel grace period
};

struct RoleStatus {
  std::string role;
  std::vector<ReplicaStatus> replicas;
};

struct AppStatus {
  std::string app_id;
  std::string name;
  std::string session;
  std::string state = "UNKNOWN";
  std::string msg;
  int64_t num_restarts = 0;
  std::vector<RoleStatus> roles;
};

// The replica a GET /containers/{id}/json answer describes.
ReplicaStatus replica_from_inspect(const rapidjson::Value& inspect);

// "2024-05-01T10:00:00.123456789Z" -> ns since the epoch; nullopt for Docker's zero time or
// malformed text.
std::optional<int64_t> parse_docker_time(std::string_view text);

// Sets app.state, app.msg and app.num_restarts from the replicas: any FAILED -> FAILED (msg names
// the first failed replica), all SUCCEEDED -> SUCCEEDED, any RUNNING -> RUNNING, else PENDING.
void derive_app_state(AppStatus& app);

std::string to_status_payload(const AppStatus& app);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_APP_STATUS_HPP
