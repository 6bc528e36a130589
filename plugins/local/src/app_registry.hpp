// Where a scheduler instance finds apps from their id alone: <state_dir>/apps/<app_id> is a
// symlink to the app directory. Loading a status also notices a supervisor that died without
// recording the end of its app, and reports it FAILED (without writing: readers never write).
#ifndef SORTIE_LOCAL_APP_REGISTRY_HPP
#define SORTIE_LOCAL_APP_REGISTRY_HPP

#include <string>
#include <string_view>
#include <vector>

#include "app_status.hpp"
#include "launch_request.hpp"

namespace sortie::local {

class AppRegistry {
 public:
  AppRegistry(std::string scheduler_name, std::string state_dir);

  // Throws ALREADY_EXISTS when the id is taken.
  void register_app(const std::string& app_id, const std::string& app_dir);
  // Throws NOT_FOUND naming the id when it is not registered.
  std::string app_dir(std::string_view app_id) const;
  std::vector<std::string> app_ids() const;

  // state.json of the app, reconciled with the liveness of its supervisor.
  LocalApp load_status(std::string_view app_id) const;
  LocalApp load_status_from_dir(const std::string& app_dir) const;
  // state.json exactly as last written.
  LocalApp read_recorded_status(const std::string& app_dir) const;
  // Writes state.json, e.g. when cancel() finishes an app whose supervisor is gone.
  void store_status(const std::string& app_dir, const LocalApp& app) const;

 private:
  std::string scheduler_name_;
  std::string apps_dir_;
};

// SUBMITTED, each replica of the request PENDING: the status before the supervisor runs.
LocalApp status_before_start(const LaunchRequest& request);

// Kills what is left of the app where its containment needs it (its cgroup, or the marked
// processes) and ends the app and its replicas that are not terminal in `state`: the cleanup a
// vanished supervisor could not do.
void end_leftover_replicas(LocalApp& app, const std::string& app_dir, AppState state,
                           const std::string& msg);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_APP_REGISTRY_HPP
