// The runner's status: the core's (the SDK's) with where it came from.
#include "runner_impl.hpp"

namespace sortie::runner {

std::string to_string(AppState state) { return std::string(app_state_name(state)); }

AppStatus public_status(const model::AppStatus& status, bool from_store_only) {
  return AppStatus{status, from_store_only, ""};
}

AppStatus public_status(const session::AppLookup& app) {
  AppStatus status = public_status(*app.status, app.from_store_only);
  status.not_refreshed = app.not_refreshed;
  return status;
}

}  // namespace sortie::runner
