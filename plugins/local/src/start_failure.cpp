#include "start_failure.hpp"

#include <exception>

#include "app_notify.hpp"
#include "app_status.hpp"
#include "file_util.hpp"
#include "runtime_dir.hpp"

namespace sortie::local {

std::string record_start_failure(const std::string& app_dir, const std::string& msg) noexcept {
  try {
    const std::optional<std::string> text = read_state_text(app_dir);
    if (!text) return {};
    LocalApp app = parse_state_json(*text, app_dir + "/state.json");
    if (app.supervisor.pid || is_terminal(app.status.state)) return {};
    app.status.state = AppState::kFailed;
    app.status.msg = msg;
    for (RoleStatus& role : app.status.roles) {
      for (ReplicaStatus& replica : role.replicas) {
        replica.state = state_of(ProcessFate::kFailed);
        replica.msg = "never started: " + msg;
      }
    }
    write_file_atomically(writable_state_path(app_dir), to_state_json(app));
    const std::string runtime_dir = runtime_dir_of(app_dir);
    notify_waiters(runtime_dir);
    retire_runtime_dir(app_dir, runtime_dir);
    return {};
  } catch (const std::exception& error) {
    return error.what();
  }
}

std::string cancel_request_path(const std::string& app_dir) { return app_dir + "/cancel_request"; }

}  // namespace sortie::local
