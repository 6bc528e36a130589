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

AppStatus AppRegistry::load_status(std::string_view app_id) const {
  return load_status_from_dir(app_dir(app_id));
}

AppStatus status_before_start(const LaunchRequest& request) {
  AppStatus status;
  status.app_id = request.app_id;
  status.name = request.app_name;
  status.session = request.session;
  for (const RoleLaunch& role : request.roles) {
    RoleStatus role_status;
    role_status.role = role.name;
    for (const ReplicaLaunch& replica : role.replicas) {
      ReplicaStatus replica_status;
      replica_status.id = replica.id;
      role_status.replicas.push_back(replica_status);
    }
    status.roles.push_back(std::move(role_status));
  }
  return status;
}

namespace {

// What is known of an app whose runtime files vanished before it ended: the machine restarted or
// the runtime directory was removed (at logout), and with it the supervisor's record. The app's
// processes did not survive a restart; its request and logs are still in the app directory.
AppStatus status_without_runtime_files(const std::string& app_dir) {
  const std::string request_path = app_dir + "/request.json";
  const LaunchRequest request =
      read_launch_request(parse_object(read_file(request_path), request_path), request_path);
  AppStatus status = status_before_start(request);
  status.state = "FAILED";
  status.msg = "its runtime directory " + runtime_dir_of(app_dir) +
               " vanished before the app ended (the machine restarted, or it was removed at "
               "logout); its logs are in " +
               app_dir;
  for (RoleStatus& role : status.roles) {
    for (ReplicaStatus& replica : role.replicas) {
      replica.state = "FAILED";
      replica.msg = status.msg;
    }
  }
  return status;
}

}  // namespace

AppStatus AppRegistry::read_recorded_status(const std::string& app_dir) const {
  const std::optional<std::string> text = read_state_text(app_dir);
  if (!text) return status_without_runtime_files(app_dir);
  return parse_state_json(*text, app_dir + "/state.json");
}

AppStatus AppRegistry::load_status_from_dir(const std::string& app_dir) const {
  AppStatus status = read_recorded_status(app_dir);
  if (is_terminal(status.state)) return status;
  if (status.supervisor_pid == 0) {
    // Before the supervisor records itself, its submitter, starter or itself holds the lock.
    if (submission_in_progress(app_dir)) return status;
    status = read_recorded_status(app_dir);  // it may have recorded itself and let go meanwhile
    if (is_terminal(status.state) || status.supervisor_pid != 0) return status;
    const std::string msg =
        "submission interrupted: the submitting process died before the supervisor started";
    kill_leftover_replicas(status, app_dir, "FAILED", msg);
    status.state = "FAILED";
    status.msg = msg;
    return status;
  }
  if (is_same_process_running(static_cast<pid_t>(status.supervisor_pid),
                              status.supervisor_start_time)) {
    return status;
  }
  // The supervisor may have exited normally between our read and the liveness check.
  status = read_recorded_status(app_dir);
  if (is_terminal(status.state)) return status;
  // Reported, not written: readers never write (a full disk must not stop them), and the same
  // finding follows from the same files every time.
  const std::string msg =
      "supervisor (pid " + std::to_string(status.supervisor_pid) + ") died unexpectedly";
  kill_leftover_replicas(status, app_dir, "FAILED", msg);
  status.state = "FAILED";
  status.msg = msg;
  return status;
}

void AppRegistry::store_status(const std::string& app_dir, const AppStatus& status) const {
  write_file_atomically(writable_state_path(app_dir), to_state_json(status));
}

void kill_leftover_replicas(AppStatus& status, const std::string& app_dir,
                            const std::string& replica_state, const std::string& msg) {
  // In a PID namespace the kernel killed them all with the supervisor.
  if (status.containment == kCgroup) {
    // What cannot be removed now (a process stuck in the kernel) is tried again by the next
    // command that reads the app.
    kill_and_remove_cgroup(status.cgroup);
  } else if (status.containment != kPidNamespace) {
    kill_marked_processes(app_dir);
  }
  for (RoleStatus& role : status.roles) {
    for (ReplicaStatus& replica : role.replicas) {
      if (is_terminal(replica.state)) continue;
      replica.state = replica_state;
      replica.msg = msg;
    }
  }
}

}  // namespace sortie::local
