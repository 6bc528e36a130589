#include "app_status.hpp"

#include <ctime>
#include <utility>

#include "json_fields.hpp"

namespace sortie::docker {
namespace {

std::optional<int64_t> optional_time(const rapidjson::Value& state, const char* key) {
  return parse_docker_time(plugins_common::string_member(state, key, "container State"));
}

}  // namespace

std::optional<int64_t> parse_docker_time(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T') return std::nullopt;
  const auto digits = [&](size_t pos, size_t count) -> int {
    int value = 0;
    for (size_t i = pos; i < pos + count; ++i) {
      if (text[i] < '0' || text[i] > '9') return -1;
      value = value * 10 + (text[i] - '0');
    }
    return value;
  };
  std::tm tm{};
  tm.tm_year = digits(0, 4) - 1900;
  tm.tm_mon = digits(5, 2) - 1;
  tm.tm_mday = digits(8, 2);
  tm.tm_hour = digits(11, 2);
  tm.tm_min = digits(14, 2);
  tm.tm_sec = digits(17, 2);
  if (digits(0, 4) < 1971 || tm.tm_mon < 0 || tm.tm_mday < 1 || tm.tm_hour < 0 || tm.tm_min < 0 ||
      tm.tm_sec < 0) {
    return std::nullopt;  // Docker's "0001-01-01T00:00:00Z" means "never"
  }
  int64_t nanos = 0;
  size_t pos = 19;
  if (pos < text.size() && text[pos] == '.') {
    int64_t scale = 100000000;
    for (++pos; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
      nanos += (text[pos] - '0') * scale;
      scale /= 10;
    }
  }
  int64_t offset_s = 0;
  if (pos < text.size() && (text[pos] == '+' || text[pos] == '-') && pos + 6 <= text.size()) {
    const int hours = digits(pos + 1, 2);
    const int minutes = digits(pos + 4, 2);
    if (hours < 0 || minutes < 0) return std::nullopt;
    offset_s = (text[pos] == '+' ? 1 : -1) * (hours * 3600 + minutes * 60);
  } else if (pos >= text.size() || text[pos] != 'Z') {
    return std::nullopt;
  }
  const int64_t seconds = static_cast<int64_t>(::timegm(&tm)) - offset_s;
  return seconds * 1000000000 + nanos;
}

AppState state_of(std::string_view container_status) {
  static constexpr std::pair<std::string_view, AppState> kStates[] = {
      {"created", AppState::kPending},  {"restarting", AppState::kPending},
      {"running", AppState::kRunning},  {"paused", AppState::kRunning},
      {"exited", AppState::kSucceeded}, {"dead", AppState::kFailed},
      {"removing", AppState::kUnknown},
  };
  return state_in(kStates, container_status);
}

InspectedContainer read_inspect(const rapidjson::Value& inspect) {
  const std::string what = "container";
  InspectedContainer found;
  ReplicaStatus& replica = found.replica;
  ContainerFacts& container = found.container;
  std::string name = plugins_common::string_member(inspect, "Name", what);
  if (!name.empty() && name[0] == '/') name.erase(0, 1);
  container.name = name;
  replica.restarts = plugins_common::int_member(inspect, "RestartCount", what, 0);
  if (const rapidjson::Value* config = plugins_common::object_member(inspect, "Config", what)) {
    replica.hostname = plugins_common::string_member(*config, "Hostname", what + " Config");
    container.stop_timeout_s =
        plugins_common::int_member(*config, "StopTimeout", what + " Config", 10);
  }
  const rapidjson::Value* state = plugins_common::object_member(inspect, "State", what);
  if (state == nullptr) {
    replica.state = AppState::kUnknown;
    replica.msg = "the Docker Engine reported no state for container " + name;
    return found;
  }
  const std::string status = plugins_common::string_member(*state, "Status", what + " State");
  const std::string error = plugins_common::string_member(*state, "Error", what + " State");
  const int64_t exit_code = plugins_common::int_member(*state, "ExitCode", what + " State", 0);
  const bool oom = plugins_common::bool_member(*state, "OOMKilled", what + " State", false);
  replica.started_at = optional_time(*state, "StartedAt");
  replica.finished_at = optional_time(*state, "FinishedAt");
  replica.state = state_of(status);
  container.live = status == "running" || status == "paused" || status == "restarting";
  if (status == "created") {
    if (!error.empty()) {
      // The Engine could not start it: bad command, missing device or driver, ...
      replica.state = AppState::kFailed;
      replica.exit_code = exit_code != 0 ? exit_code : 128;
      replica.msg = error;
    }
  } else if (replica.state == AppState::kRunning) {
    const int64_t pid = plugins_common::int_member(*state, "Pid", what + " State", 0);
    if (pid > 0) replica.pid = pid;
  } else if (status == "restarting") {
    replica.msg = "restarting after exit code " + std::to_string(exit_code) + " (restart " +
                  std::to_string(replica.restarts + 1) + ")";
  } else if (status == "exited") {
    replica.exit_code = exit_code;
    if (oom) {
      replica.state = AppState::kFailed;
      replica.msg = "OOM-killed: the container exceeded its memory limit (resource.memMB)";
    } else if (exit_code != 0) {
      replica.state = AppState::kFailed;
      replica.msg = !error.empty() ? error : "exited with code " + std::to_string(exit_code);
    }
  } else if (status == "dead") {
    replica.exit_code = exit_code;
    replica.msg = "container is dead (the Docker Engine failed to stop or remove it)" +
                  (error.empty() ? std::string() : ": " + error);
  } else {
    replica.msg = "container is " + status;  // removing
  }
  return found;
}

void derive_app_state(AppStatus& app) {
  bool all_succeeded = true;
  bool any_running = false;
  const ReplicaStatus* failed = nullptr;
  std::string failed_role;
  app.num_restarts = 0;
  for (const RoleStatus& role : app.roles) {
    for (const ReplicaStatus& replica : role.replicas) {
      app.num_restarts += replica.restarts;
      all_succeeded = all_succeeded && replica.state == AppState::kSucceeded;
      any_running = any_running || replica.state == AppState::kRunning;
      if (replica.state == AppState::kFailed && failed == nullptr) {
        failed = &replica;
        failed_role = role.role;
      }
    }
  }
  if (failed != nullptr) {
    app.state = AppState::kFailed;
    app.msg =
        "replica " + failed_role + "/" + std::to_string(failed->id) + " failed: " + failed->msg;
  } else if (all_succeeded) {
    app.state = AppState::kSucceeded;
  } else if (any_running) {
    app.state = AppState::kRunning;
  } else {
    app.state = AppState::kPending;
  }
}

ReplicaStatus* find_replica(AppStatus& app, std::string_view role, int64_t id) {
  for (RoleStatus& candidate : app.roles) {
    if (candidate.role != role) continue;
    for (ReplicaStatus& replica : candidate.replicas) {
      if (replica.id == id) return &replica;
    }
  }
  return nullptr;
}

std::string to_status_payload(const DockerApp& app) {
  AppStatus status = app.status;
  status.metadata = {{"session", json_string(app.session)}, {"name", json_string(app.name)}};
  return write_status(status);
}

}  // namespace sortie::docker
