// The app's live status as the supervisor records it in <app_dir>/state.json: the SDK's
// sortie::AppStatus plus what only this scheduler knows (its labels, its supervisor, how its
// processes are contained), and its rendering as the sortie.status/1 payload.
#ifndef SORTIE_LOCAL_APP_STATUS_HPP
#define SORTIE_LOCAL_APP_STATUS_HPP

#include <cstdint>
#include <optional>
#include <sortie/app_status.hpp>
#include <string>
#include <string_view>

namespace sortie::local {

// What became of a replica's process, as the supervisor sees it.
enum class ProcessFate {
  kNotStarted,      // not started yet, or waiting for its restart
  kRunning,         // started and not reaped
  kExitedZero,      // reaped with status 0
  kFailed,          // reaped with another status, or could not be started
  kStoppedBySortie  // stopped because the app was cancelled or another replica failed
};

// A replica's AppState for its process's fate (TorchX's local scheduler: a Popen returncode of
// None is RUNNING, 0 SUCCEEDED, anything else FAILED).
AppState state_of(ProcessFate fate);

// Who supervises the app and how its processes are contained.
struct Supervision {
  std::optional<int64_t> pid;  // the supervisor's pid on the host; absent until it started
  uint64_t start_time = 0;     // field 22 of /proc/<pid>/stat, to detect pid reuse
  std::string containment;     // kPidNamespace, kCgroup or kProcessMarker (containment.hpp)
  std::string cgroup;          // the app's cgroup directory with kCgroup
};

struct LocalApp {
  AppStatus status;
  std::string name;
  std::string session;
  Supervision supervisor;
};

// state.json: the status plus what a later process needs to take over (supervisor identity).
std::string to_state_json(const LocalApp& app);
LocalApp parse_state_json(std::string_view text, std::string_view path);

// sortie.status/1 (payloads.md P-8).
std::string to_status_payload(const LocalApp& app, std::string_view ui_url);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_APP_STATUS_HPP
