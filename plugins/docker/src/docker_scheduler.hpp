// The local_docker scheduler: one container per replica on a user-defined network per app, all
// labelled with session, app id, role and replica id (labels.hpp), so describe, list, wait,
// cancel and logs work from any process through the Engine alone. What Docker cannot remember
// (failures before a container existed, the outcome of a cancel) is kept in AppRecords.
#ifndef SORTIE_DOCKER_DOCKER_SCHEDULER_HPP
#define SORTIE_DOCKER_DOCKER_SCHEDULER_HPP

#include <memory>
#include <optional>
#include <sortie/plugin.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "app_plan.hpp"
#include "app_records.hpp"
#include "app_status.hpp"
#include "engine.hpp"

namespace sortie::docker {

class DockerScheduler : public Scheduler {
 public:
  // config: "sortie.scheduler_config/1".
  explicit DockerScheduler(std::string_view config);

  std::string run_options() override;
  std::string dryrun(std::string_view input) override;
  std::string schedule(std::string_view request) override;
  std::string describe(std::string_view app_id) override;
  std::string list(std::string_view filter) override;
  void cancel(std::string_view app_id) override;
  std::string wait(std::string_view app_id, std::string_view known_state,
                   int64_t timeout_ms) override;
  std::unique_ptr<LogStream> log_open(std::string_view app_id, std::string_view request) override;

 private:
  struct Container {
    std::string id;
    std::string name;
    std::string app_id;
    std::string role;
    int64_t role_index = 0;
    int64_t replica_id = 0;
    int64_t num_replicas = 1;
    std::string app_name;
    std::string session;
    std::string state;   // created, running, exited, ...
    std::string status;  // "Exited (1) 2 seconds ago"
  };

  Engine& engine();
  std::vector<Container> containers(const std::vector<std::string>& label_filters);
  // The app's status, or nullopt when neither a container nor a record knows the app. Stops the
  // live replicas of an app that has FAILED and removes the network of a finished app.
  std::optional<DockerApp> load_status(std::string_view app_id);
  void stop_and_remove(const std::vector<std::string>& names, int64_t grace_seconds, bool remove);

  SchedulerContext context_;
  AppRecords records_;
  std::unique_ptr<Engine> engine_;  // opened on first use: dryrun needs no Engine
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_DOCKER_SCHEDULER_HPP
