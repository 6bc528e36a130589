#include "app_report.hpp"

#include <cstdio>
#include <sortie/model/model.hpp>
#include <sortie/model/printable.hpp>

#include "commands.hpp"

namespace sortie::cli {

int report_unknown_app(const std::string& handle) {
  std::fprintf(stderr, "sortie: app %s is unknown to its scheduler and to the store\n",
               model::printable(handle).c_str());
  return kExitAppNotSucceeded;
}

int report_shown_status(const std::string& handle, const std::optional<runner::AppStatus>& status) {
  if (!status || !status->from_store_only) return kExitOk;
  if (status->not_refreshed.empty()) {
    std::fprintf(stderr, "sortie: %s no longer knows this app; showing the last recorded status\n",
                 model::printable(model::parse_app_handle(handle).scheduler).c_str());
    return kExitOk;
  }
  std::fprintf(stderr, "sortie: showing the last recorded status of %s: %s\n",
               model::printable(handle).c_str(),
               model::printable_message(status->not_refreshed).c_str());
  return runner::is_terminal(status->state) ? kExitOk : kExitBackend;
}

}  // namespace sortie::cli
