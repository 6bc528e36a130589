// An app's status as describe() and wait() return it, sortie.status/1 (docs/payloads.md P-8),
// its writer and its reader. Part of Sortie::plugin_support.
#ifndef SORTIE_APP_STATUS_HPP
#define SORTIE_APP_STATUS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "app_state.hpp"

namespace sortie {

struct ReplicaStatus {
  int64_t id = 0;
  AppState state = AppState::kUnknown;
  std::optional<int64_t> pid;  // absent: the backend does not know
  std::optional<int64_t> exit_code;
  std::string hostname;
  int64_t restarts = 0;
  std::optional<int64_t> started_at;  // ns since the epoch
  std::optional<int64_t> finished_at;
  std::string msg;
};

struct RoleStatus {
  std::string role;
  std::vector<ReplicaStatus> replicas;
};

struct AppStatus {
  std::string app_id;
  AppState state = AppState::kUnknown;
  int64_t num_restarts = 0;
  std::string msg;
  std::string ui_url;
  std::string structured_error_msg;
  std::vector<RoleStatus> roles;
  // Scheduler-specific members: key -> the value as JSON text ("\"default\"", "42").
  std::vector<std::pair<std::string, std::string>> metadata;
};

// The sortie.status/1 JSON text; unknown pids, exit codes and times are written as null.
std::string write_status(const AppStatus& status);

// Reads sortie.status/1 JSON text, as describe() writes it. A state name this version does not
// know reads as UNKNOWN; other errors name the field path ("roles[0].replicas[1].id: ...").
AppStatus read_status(std::string_view json);

// `text` as a JSON string literal, quotes included: a metadata value.
std::string json_string(std::string_view text);

}  // namespace sortie

#endif  // SORTIE_APP_STATUS_HPP
