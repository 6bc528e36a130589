// The public status types from the core's.
#include <sortie/core/model.hpp>
#include <sortie/runner/core_status.hpp>

#include "runner_impl.hpp"

namespace sortie::runner {

std::string to_string(AppState state) { return std::string(app_state_name(state)); }

core::AppStatus core_status(const AppStatus& status) {
  core::AppStatus result;
  result.app_id = status.app_id;
  result.state = status.state;
  result.num_restarts = status.restarts;
  result.msg = status.message;
  result.ui_url = status.ui_url;
  result.structured_error_msg = status.structured_error_message;
  for (const auto& role : status.roles) {
    core::RoleStatus& out = result.roles.emplace_back();
    out.role = role.role;
    for (const auto& replica : role.replicas) {
      out.replicas.push_back(core::ReplicaStatus{
          replica.id, replica.state, replica.pid, replica.exit_code, replica.hostname,
          replica.restarts, replica.started_at, replica.finished_at, replica.message});
    }
  }
  return result;
}

AppStatus public_status(const core::AppStatus& status, bool from_store_only) {
  AppStatus result;
  result.app_id = status.app_id;
  result.state = status.state;
  result.message = status.msg;
  result.restarts = status.num_restarts;
  result.ui_url = status.ui_url;
  result.structured_error_message = status.structured_error_msg;
  result.from_store_only = from_store_only;
  for (const auto& role : status.roles) {
    RoleStatus& out = result.roles.emplace_back();
    out.role = role.role;
    for (const auto& replica : role.replicas) {
      out.replicas.push_back(ReplicaStatus{replica.id, replica.state, replica.pid,
                                           replica.exit_code, replica.hostname, replica.restarts,
                                           replica.started_at, replica.finished_at, replica.msg});
    }
  }
  return result;
}

AppStatus public_status(const session::AppLookup& app) {
  AppStatus status = public_status(*app.status, app.from_store_only);
  status.not_refreshed = app.not_refreshed;
  return status;
}

}  // namespace sortie::runner
