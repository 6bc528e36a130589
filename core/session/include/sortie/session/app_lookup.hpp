// File: core/session/include/sortie/session/app_lookup.hpp
//
// Resolves a handle for the commands that act on an existing app: parses it, loads its
// scheduler, asks for the current status and records it in the store. When the backend has
// forgotten the app, or the plugin of its scheduler is no longer on the search path, the store's
// last record still answers (marked as such, with the reason).
#ifndef SORTIE_SESSION_APP_LOOKUP_HPP
#define SORTIE_SESSION_APP_LOOKUP_HPP

#include <memory>
#include <optional>
#include <sortie/model/model.hpp>
#include <sortie/plugin_host/plugin_host.hpp>
#include <sortie/session/session.hpp>
#include <string>

namespace sortie::session {

struct AppLookup {
  model::AppHandle handle;
  // Null when the plugin of the handle's scheduler is not on the search path (the app is
  // recorded; `not_refreshed` says why).
  std::unique_ptr<plugin_host::SchedulerClient> scheduler;
  std::optional<model::AppStatus> status;  // nullopt: unknown to scheduler and store
  bool from_store_only = false;            // the status is the store's last record
  std::string not_refreshed;               // why the scheduler could not be asked, if it could not

  // The scheduler, or an Error (backend failure) saying why it cannot be used.
  plugin_host::SchedulerClient& loaded_scheduler() const;
};

AppLookup lookup_app(Session& ctx, const std::string& handle_text);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_APP_LOOKUP_HPP
