// File: core/session/include/sortie/session/launcher.hpp
//
// The submit pipeline shared by every way of launching: resolve run options against the
// scheduler's declaration, fetch images through the image provider it names, dry-run, then
// schedule and record the app in the store: recorded UNSUBMITTED before the scheduler runs
// anything, confirmed SUBMITTED after (submission.hpp), so no app runs unrecorded.
#ifndef SORTIE_SESSION_LAUNCHER_HPP
#define SORTIE_SESSION_LAUNCHER_HPP

#include <map>
#include <optional>
#include <sortie/dryrun_input.hpp>
#include <sortie/model/model.hpp>
#include <sortie/model/runopts.hpp>
#include <sortie/plugin_host/plugin_host.hpp>
#include <sortie/session/session.hpp>
#include <sortie/store/store.hpp>
#include <string>
#include <utility>
#include <vector>

namespace sortie::session {

struct LaunchPlan {
  AppDef app;
  std::string scheduler;
  std::string session;
  std::map<std::string, model::RawOpt> raw_cfg;  // config-file values overridden by -cfg
  // The experiment's jobs this app runs, recorded with it before it is submitted.
  std::optional<store::WorkUnitLink> work_unit;
};

struct DryRunResult {
  std::string app_id;
  std::string app_json;     // the app as sent (write_appdef), recorded as it is
  std::string output_dir;   // the app's output_dir (output_dir.hpp), created when it is scheduled
  std::string cfg_json;     // resolved run options
  std::string dryrun_json;  // "sortie.dryrun/1" as the scheduler wrote it
  std::string request_pretty;
  std::string text;  // the scheduler's own rendering, may be empty
};

class Launcher {
 public:
  Launcher(Session& ctx, plugin_host::SchedulerClient& scheduler);
  DryRunResult dryrun(const LaunchPlan& plan);
  // The dry run of an app recorded before, with the run options it resolved then (`cfg_json`), so
  // that its request is the same but for a fresh app id: a work unit's re-run.
  DryRunResult dryrun_recorded(const LaunchPlan& plan, const std::string& cfg_json);
  // Submits and records; returns the handle SCHEDULER://SESSION/APP_ID.
  std::string schedule(const LaunchPlan& plan, const DryRunResult& dry);
  // Submits the apps together when the scheduler can (ABI-14) and records each; their handles.
  // When the batch fails, no app of it is left running unrecorded (settle_failed_batch).
  std::vector<std::string> schedule_batch(const std::vector<LaunchPlan>& plans,
                                          const std::vector<DryRunResult>& dries);

 private:
  // The app as UNSUBMITTED, recorded before its scheduler runs anything (submission.hpp).
  store::AppRecord record_unsubmitted(const LaunchPlan& plan, const DryRunResult& dry);
  // Marks it SUBMITTED once the scheduler took it under the dry run's id; cancels it if the
  // store cannot say so.
  void confirm(const store::AppRecord& record, const std::string& app_id);
  // After a failed schedule_batch: forgets the apps the scheduler never got, cancels (and keeps
  // on record) those it did; returns what it did, to append to the batch's error.
  std::string settle_failed_batch(const std::vector<store::AppRecord>& records);
  std::vector<std::pair<std::string, ProvidedImage>> fetch_images(const AppDef& app,
                                                                  const std::string& provider);
  Session& ctx_;
  plugin_host::SchedulerClient& scheduler_;
};

}  // namespace sortie::session

#endif  // SORTIE_SESSION_LAUNCHER_HPP
