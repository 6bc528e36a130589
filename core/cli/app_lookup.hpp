// File: core/cli/app_lookup.hpp
//
// Resolves a handle for the commands that act on an existing app: parses it, loads its
// scheduler, asks for the current status and records it in the store. When the backend has
// forgotten the app, the store's last record still answers (marked as such).
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
  std::unique_ptr<core::SchedulerClient> scheduler;
  std::optional<core::AppStatus> status;  // nullopt: unknown to scheduler and store
  bool from_store_only = false;           // the scheduler no longer knows the app
};

AppLookup lookup_app(CliContext& ctx, const std::string& handle_text);

// Says on stderr that `handle` is unknown; returns kExitAppNotSucceeded.
int report_unknown_app(const std::string& handle);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_APP_LOOKUP_HPP
