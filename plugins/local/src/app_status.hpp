// The app's live status as the supervisor records it in <app_dir>/state.json, and its rendering
// as the sortie.status/1 payload.
#ifndef SORTIE_LOCAL_APP_STATUS_HPP
#define SORTIE_LOCAL_APP_STATUS_HPP

#include <cstdint>
#include <optional>
#include <sortie/app_state.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::local {

struct ReplicaStatus {
  uint32_t id = 0;
  std::string state = "PENDING";
  int64_t pid = 0;  // 0 while unknown
  int64_t pgid = 0;
  std::optional<int> exit_code;
  int64_t restarts = 0;
  int64_t started_at = 0;  // ns since the epoch, 0 while unknown
  int64_t finished_at = 0;
  std::string msg;
};

struct RoleStatus {
  std::string role;
  std::vector<ReplicaStatus> replicas;
};

struct AppStatus {
  std::string app_id;
  std::string name;
  std::string session;
  std::string state = "SUBMITTED";
  int64_t num_restarts = 0;
  std::string msg;
  int64_t supervisor_pid = 0;  // 0 until the supervisor has started
  uint64_t supervisor_start_time = 0;
  std::string
      containment;  // kPidNamespace, kCgroup or kProcessMarker (containment.hpp); "" until started
  std::string cgroup;  // the app's cgroup directory with kCgroup
  std::vector<RoleStatus> roles;
};

// state.json: the status plus what a later process needs to take over (supervisor identity).
std::string to_state_json(const AppStatus& status);
AppStatus parse_state_json(std::string_view text, std::string_view path);

// sortie.status/1 (payloads.md P-8).
std::string to_status_payload(const AppStatus& status, std::string_view ui_url);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_APP_STATUS_HPP
