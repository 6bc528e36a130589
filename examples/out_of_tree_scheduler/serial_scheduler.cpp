// "serial" runs an app's replicas one after another inside schedule() and keeps each app in
// <state_dir>/<app id>/ (app.json, status.json), so any later sortie process can describe, list
// and read it (ABI-8). Replicas write to <role>.<replica>.log there, never to the host's stdout
// (ABI-11).
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sortie/app_list.hpp>
#include <sortie/app_status.hpp>
#include <sortie/dryrun.hpp>
#include <sortie/dryrun_input.hpp>
#include <sortie/field_support.hpp>
#include <sortie/log_request.hpp>
#include <sortie/macros.hpp>
#include <sortie/plugin.hpp>

static std::string read_file(const std::string& path) {
  std::ifstream file(path);
  return std::string(std::istreambuf_iterator<char>(file), {});
}

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

// The lines of ended replicas, handed over at once: schedule() returns when the app has ended,
// so there is never more to follow.
struct SerialLogs final : sortie::LogStream {
  struct Line {
    std::string role;
    uint32_t replica;
    std::string text;
  };
  bool next(int64_t /*timeout_ms*/, const sortie::LogSink& sink) override {
    for (const Line& line : lines)
      sink.emit({SORTIE_STREAM_STDOUT, line.role, line.replica, 0, line.text});
    lines.clear();
    return false;
  }
  std::vector<Line> lines;
};

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
    const std::string app_dir = dir + plan.app_id + "/";
    std::filesystem::create_directories(app_dir);
    std::ofstream(app_dir + "app.json") << plan.request_json;
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
        replica.exit_code = run(argv, app_dir + role.name + "." + std::to_string(id) + ".log");
        const bool ok = *replica.exit_code == 0;
        replica.state = ok ? sortie::AppState::kSucceeded : sortie::AppState::kFailed;
        if (!ok) app.state = sortie::AppState::kFailed;
      }
    }
    std::ofstream(app_dir + "status.json") << sortie::write_status(app);
    return plan.app_id;
  }
  std::string describe(std::string_view app_id) override {
    const std::string path = dir + std::string(app_id) + "/status.json";
    if (!std::filesystem::exists(path))
      throw sortie::Error::not_found("no app " + std::string(app_id));
    return read_file(path);
  }
  void cancel(std::string_view app_id) override { describe(app_id); }  // nothing left to stop
  std::string list(std::string_view /*filter: one state_dir per session*/) override {
    std::vector<sortie::ListedApp> apps;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      const std::string id = entry.path().filename();
      if (!std::filesystem::exists(dir + id + "/status.json")) continue;  // being scheduled
      apps.push_back({id, sortie::read_appdef(read_file(dir + id + "/app.json")).name,
                      sortie::read_status(describe(id)).state});
    }
    return sortie::write_app_list(apps);
  }
  std::unique_ptr<sortie::LogStream> log_open(std::string_view app_id,
                                              std::string_view request_json) override {
    const sortie::LogRequest request = sortie::read_log_request(request_json);
    if (request.streams != sortie::LogStreams::kCombined || request.since_ns || request.until_ns ||
        request.tail) {
      throw sortie::Error::unimplemented(
          "serial keeps one combined, untimed log per replica: drop --streams, --since, --until");
    }
    auto logs = std::make_unique<SerialLogs>();
    for (const sortie::RoleStatus& role : sortie::read_status(describe(app_id)).roles) {
      for (const sortie::ReplicaStatus& replica : role.replicas) {
        if (!request.selects(role.role, replica.id)) continue;
        std::ifstream file(dir + std::string(app_id) + "/" + role.role + "." +
                           std::to_string(replica.id) + ".log");
        for (std::string line; std::getline(file, line);) {
          logs->lines.push_back({role.role, static_cast<uint32_t>(replica.id), line + "\n"});
        }
      }
    }
    return logs;
  }
  std::string dir;
};

SORTIE_PLUGIN("serial_scheduler", "1.0.0",
              SORTIE_SCHEDULER("serial", "Runs an app's replicas one after another",
                               SerialScheduler));
