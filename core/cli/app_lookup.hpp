// File: core/cli/app_lookup.hpp
//
// Resolves a handle for the commands that act on an existing app: parses it, loads its
// scheduler, asks for the current status and records it in the store. When the backend has
// forgotten the app, or the plugin of its scheduler is no longer on the search path, the store's
// last record still answers (marked as such, with the reason).
#ifndef SORTIE_CLI_APP_LOOKUP_HPP
#define SORTIE_CLI_APP_LOOKUP_HPP

#include <memory>
#include <optional>
#include <sortie/core/model.hpp>
#include <sortie/core/plugin_host.hpp>
#include <string>

#include "cli_context.hpp"

namespace sortie::cli {

struct AppLookup {
  core::AppHandle handle;
  // Null when the plugin of the handle's scheduler is not on the search path (the app is
  // recorded; `not_refreshed` says why).
  std::unique_ptr<core::SchedulerClient> scheduler;
  std::optional<core::AppStatus> status;  // nullopt: unknown to scheduler and store
  bool from_store_only = false;           // the status is the store's last record
  std::string not_refreshed;              // why the scheduler could not be asked, if it could not

  // The scheduler, or an Error (backend failure) saying why it cannot be used.
  core::SchedulerClient& loaded_scheduler() const;
};

AppLookup lookup_app(CliContext& ctx, const std::string& handle_text);

// Says on stderr that `handle` is unknown; returns kExitAppNotSucceeded.
int report_unknown_app(const std::string& handle);

// For status and describe, which show the status: says on stderr when it is the store's last
// record and why, and returns the exit status. A state that could not be refreshed because the
// plugin is missing exits kExitBackend unless it is terminal (a terminal state cannot change).
int report_shown_status(const AppLookup& app);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_APP_LOOKUP_HPP
