#include <sortie/model/error.hpp>
#include <sortie/session/app_cancel.hpp>

namespace sortie::session {

std::vector<CancelFailure> cancel_apps(plugin_host::SchedulerClient& scheduler, Session& ctx,
                                       const std::vector<AppToCancel>& apps,
                                       const std::string& reason) {
  std::vector<CancelFailure> failures;
  const auto record_request = [&](const AppToCancel& app) {
    if (ctx.records().get(app.handle))
      ctx.store().add_event(app.handle, "cancel_requested", reason);
  };
  if (apps.size() > 1 && scheduler.can_cancel_batch()) {
    std::vector<std::string> app_ids;
    for (const AppToCancel& app : apps) app_ids.push_back(app.app_id);
    try {
      scheduler.cancel_batch(app_ids);
      for (const AppToCancel& app : apps) record_request(app);
      return failures;
    } catch (const Error&) {
      // Below, app by app: which app failed, and the others cancelled all the same.
    }
  }
  for (const AppToCancel& app : apps) {
    try {
      scheduler.cancel(app.app_id);
      record_request(app);
    } catch (const Error& error) {
      failures.push_back({app.handle, error});
    }
  }
  return failures;
}

}  // namespace sortie::session
