// The local_cwd and local_dir schedulers: each app runs as processes on this host under its own
// supervisor (sortie-local-supervisor), which outlives the submitting process. Everything about
// an app lives in its app directory, found from the app id through <state_dir>/apps, so any later
// process can describe, wait for, cancel or read the logs of it.
#ifndef SORTIE_LOCAL_LOCAL_SCHEDULER_HPP
#define SORTIE_LOCAL_LOCAL_SCHEDULER_HPP

#include <memory>
#include <sortie/plugin.hpp>
#include <string>
#include <string_view>

#include "app_registry.hpp"
#include "dryrun_builder.hpp"
#include "supervisor_launch.hpp"

namespace sortie::local {

class LocalScheduler : public Scheduler {
 public:
  // config: "sortie.scheduler_config/1".
  LocalScheduler(std::string_view config, ImageMode mode);

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
  SchedulerContext context_;
  AppRegistry registry_;
  SupervisorStarts starts_;
};

class LocalCwdScheduler : public LocalScheduler {
 public:
  explicit LocalCwdScheduler(std::string_view config) : LocalScheduler(config, ImageMode::kCwd) {}
};

class LocalDirScheduler : public LocalScheduler {
 public:
  explicit LocalDirScheduler(std::string_view config) : LocalScheduler(config, ImageMode::kDir) {}
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_LOCAL_SCHEDULER_HPP
