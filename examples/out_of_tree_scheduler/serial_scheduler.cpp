// "serial" runs an app's replicas one after another inside schedule() and keeps the status in
// its state_dir, so any later sortie process can describe the app (ABI-8). Replicas write to
// <state_dir>/<app id>.log, never to the host's stdout (ABI-11).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sortie/app_status.hpp>
#include <sortie/dryrun.hpp>
#include <sortie/dryrun_input.hpp>
#include <sortie/field_support.hpp>
#include <sortie/macros.hpp>
#include <sortie/plugin.hpp>

// argv's exit status (127 if it cannot start), its stdout and stderr appended to log_path.
static int run(std::vector<std::string> argv, const std::string& log_path) {
  std::vector<char*> args;
  for (std::string& arg : argv) args.push_back(arg.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                   0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  pid_t pid = 0;
  int status = 0;
  const int spawned = posix_spawnp(&pid, args[0], &files, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) return 127;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct SerialScheduler final : sortie::Scheduler {
  explicit SerialScheduler(std::string_view config)
      : dir(sortie::read_scheduler_config(config).state_dir + "/") {}
  std::string dryrun(std::string_view input) override {  // the request is the app itself
    const sortie::DryrunInput in = sortie::read_dryrun_input(input);
    sortie::refuse_unsupported_fields(in.app, {"roles", "num_replicas", "args"}, "serial");
    return sortie::write_dryrun({in.app_id, in.app_json, ""});
  }
  std::string schedule(std::string_view request) override {
    const sortie::Dryrun plan = sortie::read_dryrun(request);
    sortie::AppStatus app;
    app.app_id = plan.app_id;
    app.state = sortie::AppState::kSucceeded;
    for (const sortie::Role& role : sortie::read_appdef(plan.request_json).roles) {
      sortie::RoleStatus& done = app.roles.emplace_back();
      done.role = role.name;
      for (int64_t id = 0; id < role.num_replicas; ++id) {
        sortie::MacroValues macros;
        macros.set("app_id", plan.app_id).set("replica_id", std::to_string(id));
        std::vector<std::string> argv{role.entrypoint};
        for (const std::string& arg : role.args) argv.push_back(macros.apply(arg));
        sortie::ReplicaStatus& replica = done.replicas.emplace_back();
        replica.id = id;
        replica.exit_code = run(argv, dir + plan.app_id + ".log");
        const bool ok = *replica.exit_code == 0;
        replica.state = ok ? sortie::AppState::kSucceeded : sortie::AppState::kFailed;
        if (!ok) app.state = sortie::AppState::kFailed;
      }
    }
    std::ofstream(dir + plan.app_id) << sortie::write_status(app);
    return plan.app_id;
  }
  std::string describe(std::string_view app_id) override {
    std::ifstream file(dir + std::string(app_id));
    if (!file) throw sortie::Error::not_found("no app " + std::string(app_id));
    return std::string(std::istreambuf_iterator<char>(file), {});
  }
  void cancel(std::string_view app_id) override { describe(app_id); }  // nothing left to stop
  std::string dir;
};

SORTIE_PLUGIN("serial", "1.0.0",
              SORTIE_SCHEDULER("serial", "Runs an app's replicas one after another",
                               SerialScheduler));
