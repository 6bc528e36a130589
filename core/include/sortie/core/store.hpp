// File: sortie/core/store.hpp
//
// The app store: every app any sortie process submitted, with its roles, replicas and events, in
// SQLite (WAL) under the XDG state dir, so any later process can answer about any app. Each
// sortie process opens its own connection; writers retry on SQLITE_BUSY (busy_timeout) so
// concurrent CLIs never lose a write. Nothing is deleted except by `forget`.
#ifndef SORTIE_CORE_STORE_HPP
#define SORTIE_CORE_STORE_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <sortie/core/model.hpp>
#include <string>
#include <vector>

struct sqlite3;

namespace sortie::core {

struct AppRecord {
  std::string handle;  // SCHEDULER://SESSION/APP_ID
  std::string scheduler;
  std::string session;
  std::string app_id;
  std::string name;
  AppState state = AppState::kUnknown;
  int num_restarts = 0;
  std::string msg;
  std::string appdef_json;
  std::string request_json;  // the scheduler's dry-run request
  std::string cfg_json;      // resolved run options
  int64_t submitted_at = 0;  // ns since epoch
  int64_t updated_at = 0;
};

struct AppEvent {
  int64_t id = 0;
  std::string handle;
  int64_t at = 0;      // ns since epoch
  std::string kind;    // "submitted", "state", "cancel_requested", ...
  std::string detail;  // free text or JSON
};

struct ListFilter {
  std::optional<std::string> scheduler;
  std::optional<std::string> session;
  bool active_only = false;  // only non-terminal apps
  int limit = 0;             // 0 = no limit; newest first
};

class AppStore {
 public:
  // Opens (creating if needed) the database at `path`, creating parent directories, WAL mode,
  // schema migrations. Throws Error naming the path and what to do (e.g. disk full, read-only).
  static std::unique_ptr<AppStore> open(const std::string& path);
  // $SORTIE_STATE_DIR/sortie.db, else $XDG_STATE_HOME/sortie/sortie.db, else
  // ~/.local/state/sortie/sortie.db.
  static std::string default_path();
  ~AppStore();
  AppStore(const AppStore&) = delete;
  AppStore& operator=(const AppStore&) = delete;

  // Inserts a new app (and its roles from appdef_json) with a "submitted" event.
  void record_submission(const AppRecord& record);
  // Replaces the app's state, restarts, msg and replica rows with `status`; appends a "state"
  // event when the app state changed. Unknown handle: Error(NOT_FOUND).
  void record_status(const std::string& handle, const AppStatus& status);
  void add_event(const std::string& handle, const std::string& kind, const std::string& detail);

  std::optional<AppRecord> get(const std::string& handle) const;
  // The last recorded status (app + replicas), or nullopt for an unknown handle.
  std::optional<AppStatus> last_status(const std::string& handle) const;
  std::vector<AppRecord> list(const ListFilter& filter) const;
  std::vector<AppEvent> events(const std::string& handle) const;

 private:
  explicit AppStore(sqlite3* db, std::string path);
  sqlite3* db_;
  std::string path_;
};

}  // namespace sortie::core

#endif  // SORTIE_CORE_STORE_HPP
