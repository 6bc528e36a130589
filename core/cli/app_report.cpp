#include "app_report.hpp"

#include <cstdio>
#include <sortie/core/model.hpp>

#include "commands.hpp"

namespace sortie::cli {

int report_unknown_app(const std::string& handle) {
  std::fprintf(stderr, "sortie: app %s is unknown to its scheduler and to the store\n",
               handle.c_str());
  return kExitAppNotSucceeded;
}

int report_shown_status(const session::AppLookup& app) {
  if (!app.from_store_only) return kExitOk;
  if (app.not_refreshed.empty()) {
    std::fprintf(stderr, "sortie: %s no longer knows this app; showing the last recorded status\n",
                 app.handle.scheduler.c_str());
    return kExitOk;
  }
  std::fprintf(stderr, "sortie: showing the last recorded status of %s: %s\n",
               app.handle.str().c_str(), app.not_refreshed.c_str());
  return app.status && core::is_terminal(app.status->state) ? kExitOk : kExitBackend;
}

}  // namespace sortie::cli
