#include "app_registry.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <sortie/plugin.hpp>

#include "app_cgroup.hpp"
#include "containment.hpp"
#include "dryrun_builder.hpp"
#include "file_util.hpp"
#include "launch_request.hpp"
#include "process_info.hpp"
#include "runtime_dir.hpp"
#include "submit_lock.hpp"

namespace sortie::local {

AppRegistry::AppRegistry(std::string scheduler_name, std::string state_dir)
    : scheduler_name_(std::move(scheduler_name)), apps_dir_(std::move(state_dir) + "/apps") {}

void AppRegistry::register_app(const std::string& app_id, const std::string& app_dir) {
  make_directories(apps_dir_);
  const std::string link = apps_dir_ + "/" + app_id;
  if (::symlink(app_dir.c_str(), link.c_str()) != 0) {
    if (errno == EEXIST) {
      throw Error::already_exists(scheduler_name_ + ": app id '" + app_id +
                                  "' is already registered in " + apps_dir_);
    }
    throw_errno("cannot register app '" + app_id + "' at '" + link + "'");
  }
}

std::string AppRegistry::app_dir(std::string_view app_id) const {
  check_path_safe_id(app_id, "app id");
  const std::string link = apps_dir_ + "/" + std::string(app_id);
  char target[4096];
  const ssize_t n = ::readlink(link.c_str(), target, sizeof(target) - 1);
  if (n < 0) {
    throw Error::not_found(scheduler_name_ + ": no app '" + std::string(app_id) +
                           "' (nothing registered at " + link + ")");
  }
  return std::string(target, static_cast<size_t>(n));
}

std::vector<std::string> AppRegistry::app_ids() const {
  std::vector<std::string> ids;
  DIR* dir = ::opendir(apps_dir_.c_str());
  if (dir == nullptr) return ids;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] != '.') ids.emplace_back(entry->d_name);
  }
  ::closedir(dir);
  std::sort(ids.begin(), ids.end());
  return ids;
}

LocalApp AppRegistry::load_status(std::string_view app_id) const {
  return load_status_from_dir(app_dir(app_id));
}

LocalApp status_before_start(const LaunchRequest& request) {
  LocalApp app;
  app.status.app_id = request.app_id;
  app.status.state = AppState::kSubmitted;
  app.name = request.app_name;
  app.session = request.session;
  for (const RoleLaunch& role : request.roles) {
    RoleStatus& role_status = app.status.roles.emplace_back();
    role_status.role = role.name;
    for (const ReplicaLaunch& replica : role.replicas) {
      ReplicaStatus& replica_status = role_status.replicas.emplace_back();
      replica_status.id = replica.id;
      replica_status.state = state_of(ProcessFate::kNotStarted);
    }
  }
  return app;
}

namespace {

// What is known of an app whose runtime files vanished before it ended: the machine restarted or
// the runtime directory was removed (at logout), and with it the supervisor's record. The app's
// processes did not survive a restart; its request and logs are still in the app directory.
LocalApp status_without_runtime_files(const std::string& app_dir) {
  const std::string request_path = app_dir + "/request.json";
  const LaunchRequest request = read_launch_request(
      plugins_common::parse_object(read_file(request_path), request_path), request_path);
  LocalApp app = status_before_start(request);
  AppStatus& status = app.status;
  status.state = AppState::kFailed;
  status.msg = "its runtime directory " + runtime_dir_of(app_dir) +
               " vanished before the app ended (the machine restarted, or it was removed at "
               "logout); its logs are in " +
               app_dir;
  for (RoleStatus& role : status.roles) {
    for (ReplicaStatus& replica : role.replicas) {
      replica.state = AppState::kFailed;
      replica.msg = status.msg;
    }
  }
  return app;
}

}  // namespace

LocalApp AppRegistry::read_recorded_status(const std::string& app_dir) const {
  const std::optional<std::string> text = read_state_text(app_dir);
  if (!text) return status_without_runtime_files(app_dir);
  return parse_state_json(*text, app_dir + "/state.json");
}

LocalApp AppRegistry::load_status_from_dir(const std::string& app_dir) const {
  LocalApp app = read_recorded_status(app_dir);
  if (is_terminal(app.status.state)) return app;
  if (!app.supervisor.pid) {
    // Before the supervisor records itself, its submitter, starter or itself holds the lock.
    if (submission_in_progress(app_dir)) return app;
    app = read_recorded_status(app_dir);  // it may have recorded itself and let go meanwhile
    if (is_terminal(app.status.state) || app.supervisor.pid) return app;
    end_leftover_replicas(
        app, app_dir, AppState::kFailed,
        "submission interrupted: the submitting process died before the supervisor started");
    return app;
  }
  if (is_same_process_running(static_cast<pid_t>(*app.supervisor.pid), app.supervisor.start_time)) {
    return app;
  }
  // The supervisor may have exited normally between our read and the liveness check.
  app = read_recorded_status(app_dir);
  if (is_terminal(app.status.state)) return app;
  // Reported, not written: readers never write (a full disk must not stop them), and the same
  // finding follows from the same files every time.
  end_leftover_replicas(
      app, app_dir, AppState::kFailed,
      "supervisor (pid " + std::to_string(app.supervisor.pid.value_or(0)) + ") died unexpectedly");
  return app;
}

void AppRegistry::store_status(const std::string& app_dir, const LocalApp& app) const {
  write_file_atomically(writable_state_path(app_dir), to_state_json(app));
}

void end_leftover_replicas(LocalApp& app, const std::string& app_dir, AppState state,
                           const std::string& msg) {
  // In a PID namespace the kernel killed them all with the supervisor.
  if (app.supervisor.containment == kCgroup) {
    // What cannot be removed now (a process stuck in the kernel) is tried again by the next
    // command that reads the app.
    kill_and_remove_cgroup(app.supervisor.cgroup);
  } else if (app.supervisor.containment != kPidNamespace) {
    kill_marked_processes(app_dir);
  }
  for (RoleStatus& role : app.status.roles) {
    for (ReplicaStatus& replica : role.replicas) {
      if (is_terminal(replica.state)) continue;
      replica.state = state;
      replica.msg = msg;
    }
  }
  app.status.state = state;
  app.status.msg = msg;
}

}  // namespace sortie::local
