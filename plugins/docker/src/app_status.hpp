// What an app's containers say about it: Docker's container states as AppStates (one table), each
// container's inspect answer as a replica status (created / running / restarting / exited(code) /
// dead / OOM-killed / failed to start), the app state derived from its replicas, and the
// sortie.status/1 rendering.
#ifndef SORTIE_DOCKER_APP_STATUS_HPP
#define SORTIE_DOCKER_APP_STATUS_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <sortie/app_status.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::docker {

// Docker's container status ("created", "running", ...) as an AppState, before the exit code, an
// OOM kill or a start error turn it into FAILED. A status Docker may add later reads UNKNOWN.
AppState state_of(std::string_view container_status);

// What describe() and cancel() need of a replica's container besides its status.
struct ContainerFacts {
  std::string role;
  int64_t replica_id = 0;
  std::string name;             // the container's name
  bool live = false;            // it is running, restarting or paused
  int64_t stop_timeout_s = 10;  // its StopTimeout: its cancel grace period
};

// An app as its containers and its record say: the status and what only Docker has.
struct DockerApp {
  AppStatus status;
  std::string name;
  std::string session;
  std::vector<ContainerFacts> containers;  // one per container found
};

struct InspectedContainer {
  ReplicaStatus replica;
  ContainerFacts container;
};

// The replica a GET /containers/{id}/json answer describes.
InspectedContainer read_inspect(const rapidjson::Value& inspect);

// "2024-05-01T10:00:00.123456789Z" -> ns since the epoch; nullopt for Docker's zero time or
// malformed text.
std::optional<int64_t> parse_docker_time(std::string_view text);

// Sets app.state, app.msg and app.num_restarts from the replicas: any FAILED -> FAILED (msg names
// the first failed replica), all SUCCEEDED -> SUCCEEDED, any RUNNING -> RUNNING, else PENDING.
void derive_app_state(AppStatus& app);

// The replica `id` of `role`, nullptr when the app has none.
ReplicaStatus* find_replica(AppStatus& app, std::string_view role, int64_t id);

std::string to_status_payload(const DockerApp& app);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_APP_STATUS_HPP
