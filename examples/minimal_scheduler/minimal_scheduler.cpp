// "minimal": runs an app's one role as one process on this host; its state is files (ABI-8).
#include <sortie/scheduler.hpp>  // the SDK's one header for scheduler authors

struct MinimalScheduler final : sortie::Scheduler {
  explicit MinimalScheduler(std::string_view config)
      : dir(sortie::read_scheduler_config(config).state_dir + "/") {}
  std::string dryrun(std::string_view input) override {  // the request is the app itself
    const sortie::DryrunInput in = sortie::read_dryrun_input(input);
    sortie::refuse_unsupported_fields(in.app, {"args"}, "minimal");  // never ignore a field
    return sortie::write_dryrun({in.app_id, in.app_json, ""});
  }
  std::string schedule(std::string_view request) override {
    const sortie::Dryrun plan = sortie::read_dryrun(request);
    const sortie::Role role = sortie::read_appdef(plan.request_json).roles[0];
    const sortie::ReplicaCommand replica = sortie::replica_command(role, plan.app_id, 0);
    sortie::start_process(replica.argv, dir + plan.app_id);  // .pid, .log, .exit files
    return plan.app_id;
  }
  std::string describe(std::string_view app_id) override {
    sortie::AppStatus status;
    status.app_id = app_id;
    const auto state = sortie::process_state(dir + status.app_id);
    if (!state) throw sortie::Error::not_found("no app " + status.app_id);
    status.state = *state;
    return sortie::write_status(status);
  }
  void cancel(std::string_view app_id) override {
    if (!sortie::stop_process(dir + std::string(app_id)))
      throw sortie::Error::not_found("no app " + std::string(app_id));
  }
  std::string dir;
};

SORTIE_PLUGIN("minimal_scheduler", "1.0.0",
              SORTIE_SCHEDULER("minimal", "Runs one process per app", MinimalScheduler));
