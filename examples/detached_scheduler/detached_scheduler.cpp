// "detached": runs every replica of every role as a detached process on this host, each with its
// own ${replica_id} and env; lists its apps, reads and follows their logs, and takes one typed
// run option, `nice`. Its state is files under <state_dir>/<app id>/ (ABI-8): app.json and, per
// replica, start_process's <role>.<replica>.{pid,log,exit} files.
#include <filesystem>
#include <fstream>
#include <set>
#include <sortie/scheduler.hpp>

namespace fs = std::filesystem;

static const sortie::RunOptionSpec kRunOptions[] = {
    {"nice", "int", "0", "niceness the replicas run at (nice -n), 0 to 19",
     sortie::RunOptionEffect::kNone}};

static std::string read_file(const std::string& path) {
  std::ifstream file(path);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

struct DetachedScheduler final : sortie::Scheduler {
  explicit DetachedScheduler(std::string_view config)
      : dir(sortie::read_scheduler_config(config).state_dir + "/") {}
  std::string run_options() override { return sortie::write_run_options(kRunOptions); }
  std::string dryrun(std::string_view input) override {  // the request is the input itself
    const sortie::DryrunInput in = sortie::read_dryrun_input(input);
    sortie::refuse_unsupported_fields(in.app, {"roles", "num_replicas", "args", "env"}, "detached");
    const int64_t nice =
        sortie::read_run_options(in.cfg_json, kRunOptions, "detached").integer("nice");
    if (nice < 0 || nice > 19) throw sortie::Error::invalid_argument("nice: 0 to 19");
    return sortie::write_dryrun({in.app_id, std::string(input), ""});
  }
  std::string schedule(std::string_view request) override {
    const sortie::Dryrun plan = sortie::read_dryrun(request);
    const sortie::DryrunInput in = sortie::read_dryrun_input(plan.request_json);
    const int64_t nice =
        sortie::read_run_options(in.cfg_json, kRunOptions, "detached").integer("nice");
    fs::create_directories(dir + plan.app_id);
    std::ofstream(dir + plan.app_id + "/app.json") << in.app_json;
    for (const sortie::ReplicaProcess& replica : replicas(plan.app_id)) {
      const sortie::Role& role = *find_role(in.app, replica.role);
      sortie::ReplicaCommand command =
          sortie::replica_command(role, plan.app_id, replica.replica_id);
      if (nice != 0)
        command.argv.insert(command.argv.begin(), {"nice", "-n", std::to_string(nice)});
      sortie::start_process(command.argv, replica.path, command.env);
    }
    return plan.app_id;
  }
  std::string describe(std::string_view app_id) override {
    sortie::AppStatus status;
    status.app_id = app_id;
    std::set<sortie::AppState> states;
    for (const sortie::ReplicaProcess& replica : replicas(status.app_id)) {
      if (status.roles.empty() || status.roles.back().role != replica.role)
        status.roles.push_back({replica.role, {}});
      sortie::ReplicaStatus& done = status.roles.back().replicas.emplace_back();
      done.id = replica.replica_id;
      done.state = sortie::process_state(replica.path).value_or(sortie::AppState::kUnknown);
      done.exit_code = sortie::process_exit_status(replica.path);
      states.insert(done.state);
    }
    status.state = sortie::AppState::kSucceeded;  // unless one replica is in a state before it
    for (const sortie::AppState state : {sortie::AppState::kRunning, sortie::AppState::kUnknown,
                                         sortie::AppState::kCancelled, sortie::AppState::kFailed})
      if (states.count(state) != 0 && status.state == sortie::AppState::kSucceeded)
        status.state = state;
    return sortie::write_status(status);
  }
  void cancel(std::string_view app_id) override {
    for (const sortie::ReplicaProcess& replica : replicas(std::string(app_id)))
      sortie::stop_process(replica.path);  // one that has ended keeps its state
  }
  std::string list(std::string_view /*filter: one state_dir per session*/) override {
    std::vector<sortie::ListedApp> apps;
    std::error_code none_yet;  // no app scheduled, no directory
    for (const auto& entry : fs::directory_iterator(dir, none_yet)) {
      const std::string id = entry.path().filename();
      apps.push_back({id, sortie::read_appdef(read_file(dir + id + "/app.json")).name,
                      sortie::read_status(describe(id)).state});
    }
    return sortie::write_app_list(apps);
  }
  std::unique_ptr<sortie::LogStream> log_open(std::string_view app_id,
                                              std::string_view request) override {
    return sortie::open_process_logs(replicas(std::string(app_id)), request, "detached");
  }

  // Every replica of the app, in order; NOT_FOUND for an app never scheduled here.
  std::vector<sortie::ReplicaProcess> replicas(const std::string& app_id) const {
    const std::string app_json = read_file(dir + app_id + "/app.json");
    if (app_json.empty()) throw sortie::Error::not_found("no app " + app_id);
    std::vector<sortie::ReplicaProcess> all;
    for (const sortie::Role& role : sortie::read_appdef(app_json).roles) {
      for (int64_t id = 0; id < role.num_replicas; ++id)
        all.push_back({role.name, id, dir + app_id + "/" + role.name + "." + std::to_string(id)});
    }
    return all;
  }
  static const sortie::Role* find_role(const sortie::AppDef& app, const std::string& name) {
    for (const sortie::Role& role : app.roles)
      if (role.name == name) return &role;
    return nullptr;
  }
  std::string dir;
};

SORTIE_PLUGIN("detached_scheduler", "1.0.0",
              SORTIE_SCHEDULER("detached", "Runs each replica as a detached process",
                               DetachedScheduler));
