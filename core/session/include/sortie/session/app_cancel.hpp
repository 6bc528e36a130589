// File: core/session/include/sortie/session/app_cancel.hpp
//
// Cancels many apps of one scheduler in one plugin call when the plugin offers cancel_batch
// (ABI-15: e.g. one scancel for a whole Slurm sweep), else with one cancel() each, and records
// each request in the store. Returns once the scheduler accepted the requests: waiting for the
// apps to end is the caller's choice (app_waiter.hpp).
#ifndef SORTIE_SESSION_APP_CANCEL_HPP
#define SORTIE_SESSION_APP_CANCEL_HPP

#include <sortie/plugin_host/plugin_host.hpp>
#include <sortie/session/session.hpp>
#include <string>
#include <vector>

namespace sortie::session {

struct AppToCancel {
  std::string handle;  // as recorded in the store
  std::string app_id;
};

struct CancelFailure {
  std::string handle;
  Error error;
};

// Asks `scheduler` to cancel `apps` and adds a `cancel_requested` event with `reason` to each
// recorded one it accepted. When the batch fails (an app the plugin does not know fails it whole,
// ABI-15), each app is then cancelled alone, so the others still are; the apps that could not be
// cancelled are returned with why, in input order.
std::vector<CancelFailure> cancel_apps(plugin_host::SchedulerClient& scheduler, Session& ctx,
                                       const std::vector<AppToCancel>& apps,
                                       const std::string& reason);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_APP_CANCEL_HPP
