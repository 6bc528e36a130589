// What dryrun() returns and schedule() is given back, sortie.dryrun/1 (docs/payloads.md P-7),
// and what create() is given, sortie.scheduler_config/1 (P-4). Part of Sortie::plugin_support.
#ifndef SORTIE_DRYRUN_HPP
#define SORTIE_DRYRUN_HPP

#include <string>
#include <string_view>

namespace sortie {

struct Dryrun {
  std::string app_id;
  std::string request_json = "{}";  // the scheduler-native request, as JSON text
  std::string text;                 // optional human-readable rendering
};

std::string write_dryrun(const Dryrun& dryrun);
Dryrun read_dryrun(std::string_view json);

struct SchedulerConfig {
  std::string scheduler;
  std::string session;
  std::string state_dir;  // the scheduler's own durable state (ABI-8)
};

SchedulerConfig read_scheduler_config(std::string_view json);
std::string write_scheduler_config(const SchedulerConfig& config);

}  // namespace sortie

#endif  // SORTIE_DRYRUN_HPP
