#include <pwd.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <sortie/model/error.hpp>
#include <sortie/model/private_files.hpp>
#include <sortie/store/store.hpp>
#include <utility>

#include "store_schema.hpp"
#include "store_sqlite.hpp"
#include "store_wal.hpp"

namespace sortie::store {
namespace {

using detail::now_ns;
using detail::read_transaction;
using detail::Statement;
using detail::write_transaction;

constexpr AppState kAllStates[] = {AppState::kUnsubmitted, AppState::kSubmitted, AppState::kPending,
                                   AppState::kRunning,     AppState::kSucceeded, AppState::kFailed,
                                   AppState::kCancelled,   AppState::kUnknown};

constexpr const char* kAppColumns =
    "handle, scheduler, session, app_id, name, state, num_restarts, msg, appdef_json, "
    "request_json, cfg_json, submitted_at, updated_at";

// A state written by a newer sortie that this one does not know reads as UNKNOWN.
AppState state_from_column(const std::string& text) {
  return app_state_from_name(text).value_or(AppState::kUnknown);
}

std::string environment(const char* name) {
  const char* value = secure_getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string home_directory() {
  std::string home = environment("HOME");
  if (!home.empty()) return home;
  const passwd* entry = getpwuid(getuid());
  if (entry != nullptr && entry->pw_dir != nullptr && entry->pw_dir[0] != '\0') {
    return entry->pw_dir;
  }
  throw Error::failed_precondition(
      "cannot place the app store: HOME is not set and the user has no home directory; "
      "set SORTIE_STATE_DIR to a writable directory");
}

// Creates every missing directory above `path` with mode 0700: the store holds commands,
// environments and options of every app, which are nobody else's business.
void create_parent_directories(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::filesystem::path prefix;
  for (const auto& part : parent) {
    prefix /= part;
    if (::mkdir(prefix.c_str(), 0700) == 0 || errno == EEXIST) continue;
    const int error = errno;
    const sortie_status status =
        (error == ENOSPC || error == EDQUOT) ? SORTIE_RESOURCE_EXHAUSTED : SORTIE_PERMISSION_DENIED;
    throw Error(status, "cannot create directory " + prefix.string() + " for the app store " +
                            path + ": " + std::strerror(error) +
                            "; set SORTIE_STATE_DIR to a writable directory");
  }
}

struct RoleShape {
  std::string name;
  int64_t num_replicas = 1;
};

// The roles of a sortie.appdef/1 document, in order. Only what the roles table keeps is read.
std::vector<RoleShape> roles_of(const std::string& handle, const std::string& appdef_json) {
  const std::string where = "appdef_json of app " + handle;
  rapidjson::Document document;
  document.Parse(appdef_json.data(), appdef_json.size());
  if (document.HasParseError()) {
    throw Error::invalid_argument(where + ": not JSON (" +
                                  rapidjson::GetParseError_En(document.GetParseError()) +
                                  " at offset " + std::to_string(document.GetErrorOffset()) + ")");
  }
  if (!document.IsObject())
    throw Error::invalid_argument(where + ": must be a JSON object (sortie.appdef/1)");
  std::vector<RoleShape> roles;
  const auto found = document.FindMember("roles");
  if (found == document.MemberEnd()) return roles;
  if (!found->value.IsArray()) throw Error::invalid_argument(where + ": roles must be an array");
  for (rapidjson::SizeType i = 0; i < found->value.Size(); ++i) {
    const auto& role = found->value[i];
    const std::string field = where + ": roles[" + std::to_string(i) + "]";
    if (!role.IsObject() || !role.HasMember("name") || !role["name"].IsString()) {
      throw Error::invalid_argument(field + ".name: must be a string");
    }
    RoleShape shape{role["name"].GetString(), 1};
    if (role.HasMember("num_replicas")) {
      if (!role["num_replicas"].IsInt64())
        throw Error::invalid_argument(field + ".num_replicas: must be an integer");
      shape.num_replicas = role["num_replicas"].GetInt64();
    }
    roles.push_back(std::move(shape));
  }
  return roles;
}

AppRecord record_from_row(const Statement& row) {
  AppRecord record;
  record.handle = row.text(0);
  record.scheduler = row.text(1);
  record.session = row.text(2);
  record.app_id = row.text(3);
  record.name = row.text(4);
  record.state = state_from_column(row.text(5));
  record.num_restarts = static_cast<int>(row.integer(6));
  record.msg = row.text(7);
  record.appdef_json = row.text(8);
  record.request_json = row.text(9);
  record.cfg_json = row.text(10);
  record.submitted_at = row.integer(11);
  record.updated_at = row.integer(12);
  return record;
}

// The recorded state of `handle`, or nullopt when no app has that handle.
std::optional<std::string> recorded_state(sqlite3* db, const std::string& path,
                                          const std::string& handle) {
  Statement query(db, path, "SELECT state FROM apps WHERE handle = ?1", "looking up app " + handle);
  query.bind(1, handle);
  if (!query.step()) return std::nullopt;
  return query.text(0);
}

Error unknown_app(const std::string& handle, const std::string& path) {
  return Error::not_found("no app " + handle + " is recorded in the app store " + path +
                          "; list the recorded apps to find its handle");
}

void insert_event(sqlite3* db, const std::string& path, const std::string& handle, int64_t at,
                  const std::string& kind, const std::string& detail) {
  Statement insert(db, path,
                   "INSERT INTO events (handle, at, kind, detail) VALUES (?1, ?2, ?3, ?4)",
                   "recording a " + kind + " event of app " + handle);
  insert.bind(1, handle).bind(2, at).bind(3, kind).bind(4, detail).run();
}

// Inside record_submission's transaction.
void insert_experiment_jobs(sqlite3* db, const std::string& path, const std::string& handle,
                            const WorkUnitLink& unit) {
  const std::string action = "recording the jobs of work unit " +
                             std::to_string(unit.experiment_id) + "_" +
                             std::to_string(unit.work_unit_id) + " run by app " + handle;
  // Two commands that rerun one unit at once both read its last attempt and ask for the next:
  // the first to record it runs it, the other is refused here by name, before it submits.
  Statement taken(db, path,
                  "SELECT handle FROM experiment_jobs WHERE experiment_id = ?1 AND "
                  "work_unit_id = ?2 AND attempt = ?3 AND job_name = ?4",
                  action);
  Statement insert(
      db, path,
      "INSERT INTO experiment_jobs (experiment_id, work_unit_id, job_name, "
      "full_name, handle, role, executable_digest, attempt) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
      "?8)",
      action);
  for (const ExperimentJobRecord& job : unit.jobs) {
    taken.bind(1, unit.experiment_id)
        .bind(2, int64_t{unit.work_unit_id})
        .bind(3, int64_t{job.attempt})
        .bind(4, job.job_name);
    if (taken.step()) {
      throw Error::already_exists(
          "work unit " + std::to_string(unit.work_unit_id) + " of experiment " +
          std::to_string(unit.experiment_id) + " is being rerun by another command: its attempt " +
          std::to_string(job.attempt) + " is app " + taken.text(0) +
          " already, so this command does not run it again (see `sortie experiments show " +
          std::to_string(unit.experiment_id) + "`; rerun it once that attempt has ended)");
    }
    taken.reset();
    insert.bind(1, unit.experiment_id)
        .bind(2, int64_t{unit.work_unit_id})
        .bind(3, job.job_name)
        .bind(4, job.full_name)
        .bind(5, handle)
        .bind(6, job.role)
        .bind(7, job.executable_digest)
        .bind(8, int64_t{job.attempt})
        .run();
    insert.reset();
  }
}

// Replaces the app's state, restarts, msg and replicas with `status`, with a "state" event when
// the state differs from `previous`; inside a write transaction.
void write_status(sqlite3* db, const std::string& path, const std::string& handle,
                  const std::string& previous, const AppStatus& status, const std::string& action) {
  const int64_t now = now_ns();
  Statement update(db, path,
                   "UPDATE apps SET state = ?2, num_restarts = ?3, msg = ?4, ui_url = ?5, "
                   "structured_error_msg = ?6, updated_at = ?7 WHERE handle = ?1",
                   action);
  update.bind(1, handle)
      .bind(2, model::to_string(status.state))
      .bind(3, int64_t{status.num_restarts})
      .bind(4, status.msg)
      .bind(5, status.ui_url)
      .bind(6, status.structured_error_msg)
      .bind(7, now)
      .run();
  Statement clear(db, path, "DELETE FROM replicas WHERE handle = ?1", action);
  clear.bind(1, handle).run();
  Statement insert(db, path,
                   "INSERT INTO replicas (handle, role, replica_id, state, pid, exit_code, "
                   "hostname, restarts, started_at, finished_at, msg) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                   action + " (each role's replica ids must be unique)");
  for (const RoleStatus& role : status.roles) {
    for (const ReplicaStatus& replica : role.replicas) {
      std::optional<int64_t> exit_code;
      if (replica.exit_code) exit_code = *replica.exit_code;
      insert.bind(1, handle)
          .bind(2, role.role)
          .bind(3, int64_t{replica.id})
          .bind(4, model::to_string(replica.state))
          .bind(5, replica.pid)
          .bind(6, exit_code)
          .bind(7, replica.hostname)
          .bind(8, int64_t{replica.restarts})
          .bind(9, replica.started_at)
          .bind(10, replica.finished_at)
          .bind(11, replica.msg)
          .run();
      insert.reset();
    }
  }
  if (previous != model::to_string(status.state)) {
    insert_event(db, path, handle, now, "state", model::to_string(status.state));
  }
}

}  // namespace

std::string AppStore::default_path() {
  const std::string state_dir = environment("SORTIE_STATE_DIR");
  if (!state_dir.empty()) return state_dir + "/sortie.db";
  // The XDG spec says relative values are invalid and must be ignored.
  const std::string xdg_state = environment("XDG_STATE_HOME");
  if (!xdg_state.empty() && xdg_state.front() == '/') return xdg_state + "/sortie/sortie.db";
  return home_directory() + "/.local/state/sortie/sortie.db";
}

std::unique_ptr<AppStore> AppStore::open(const std::string& path) {
  create_parent_directories(path);
  // SQLite gives the -wal and -shm files the database's mode, so this covers them too.
  const model::PrivateCreation private_creation;
  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  // sqlite3_open_v2 returns a handle to close even when it fails.
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, sqlite3_close_v2);
  if (rc != SQLITE_OK) detail::throw_sqlite_error(db.get(), rc, path, "opening");
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), detail::kBusyTimeoutMs);

  // WAL lets readers run beside the one writer; it is a property of the file, so this is a no-op
  // on every open but the first.
  std::string mode;
  {
    Statement journal(db.get(), path, "PRAGMA journal_mode = WAL", "switching to WAL mode");
    journal.step();
    mode = journal.text(0);
  }
  if (mode != "wal") {
    throw Error::failed_precondition(
        "cannot use write-ahead logging on the app store " + path + " (journal mode stays " + mode +
        "): set SORTIE_STATE_DIR to a directory on a local filesystem");
  }
  // The WAL and its index stay when the last connection closes: no unlink on every exit (a few
  // ms each), and a full disk still opens and reads the store, since nothing is created.
  int persist_wal = 1;
  sqlite3_file_control(db.get(), "main", SQLITE_FCNTL_PERSIST_WAL, &persist_wal);
  // Nor a checkpoint (and its fsyncs, ~6 ms each) on every exit: a helper process checkpoints
  // once the WAL has grown (store_wal.hpp), which keeps synchronous = NORMAL's guarantee below.
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  // NORMAL in WAL mode: a power loss may drop the last commits but never corrupts the file; a
  // crash of the process loses nothing committed.
  // A WAL that a writer starts over after a complete checkpoint is cut back to 256 KiB, so a
  // helper that could not empty it does not leave a large file for good (journal_size_limit).
  detail::execute(db.get(), path,
                  "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; "
                  "PRAGMA journal_size_limit = 262144",
                  "configuring the connection");
  detail::migrate_schema(db.get(), path);
  return std::unique_ptr<AppStore>(new AppStore(db.release(), path));
}

AppStore::AppStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {
  detail::watch_wal(db_, &wal_frames_);
}

AppStore::~AppStore() {
  sqlite3_close_v2(db_);
  if (wal_frames_ >= detail::kBackgroundCheckpointFrames) {
    detail::checkpoint_in_background(path_);
  }
}

void AppStore::record_submission(const AppRecord& record, const std::optional<WorkUnitLink>& unit) {
  if (record.handle.empty()) {
    throw Error::invalid_argument(
        "cannot record an app without a handle (expected SCHEDULER://SESSION/APP_ID)");
  }
  const std::vector<RoleShape> roles = roles_of(record.handle, record.appdef_json);
  const int64_t submitted_at = record.submitted_at != 0 ? record.submitted_at : now_ns();
  const int64_t updated_at = record.updated_at != 0 ? record.updated_at : submitted_at;
  write_transaction(db_, path_, "recording app " + record.handle, [&] {
    if (recorded_state(db_, path_, record.handle)) {
      throw Error::already_exists("app " + record.handle +
                                  " is already recorded in the app store " + path_);
    }
    Statement insert(db_, path_,
                     std::string("INSERT INTO apps (") + kAppColumns +
                         ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                     "recording app " + record.handle);
    insert.bind(1, record.handle)
        .bind(2, record.scheduler)
        .bind(3, record.session)
        .bind(4, record.app_id)
        .bind(5, record.name)
        .bind(6, model::to_string(record.state))
        .bind(7, int64_t{record.num_restarts})
        .bind(8, record.msg)
        .bind(9, record.appdef_json)
        .bind(10, record.request_json)
        .bind(11, record.cfg_json)
        .bind(12, submitted_at)
        .bind(13, updated_at)
        .run();
    Statement insert_role(
        db_, path_,
        "INSERT INTO roles (handle, role, num_replicas, position) VALUES (?1, ?2, ?3, ?4)",
        "recording the roles of app " + record.handle + " (role names must be unique)");
    for (size_t position = 0; position < roles.size(); ++position) {
      insert_role.bind(1, record.handle)
          .bind(2, roles[position].name)
          .bind(3, roles[position].num_replicas)
          .bind(4, static_cast<int64_t>(position))
          .run();
      insert_role.reset();
    }
    insert_event(db_, path_, record.handle, submitted_at, "submitted",
                 model::to_string(record.state));
    if (unit) insert_experiment_jobs(db_, path_, record.handle, *unit);
  });
}

void AppStore::record_status(const std::string& handle, const AppStatus& status) {
  const std::string action = "recording the status of app " + handle;
  write_transaction(db_, path_, action, [&] {
    const std::optional<std::string> previous = recorded_state(db_, path_, handle);
    if (!previous) throw unknown_app(handle, path_);
    write_status(db_, path_, handle, *previous, status, action);
  });
}

void AppStore::record_statuses(const std::vector<RefreshedStatus>& refreshed) {
  if (refreshed.empty()) return;
  const std::string action =
      "recording the status of " + std::to_string(refreshed.size()) + " apps";
  write_transaction(db_, path_, action, [&] {
    for (const RefreshedStatus& app : refreshed) {
      const std::optional<std::string> previous = recorded_state(db_, path_, app.handle);
      if (previous && *previous == model::to_string(app.listed)) {
        write_status(db_, path_, app.handle, *previous, app.status, action);
      }
    }
  });
}

bool AppStore::settle_submission(const AppRecord& listed, const AppStatus& status,
                                 bool never_scheduled) {
  const std::string action = "settling the submission of app " + listed.handle;
  bool settled = false;
  write_transaction(db_, path_, action, [&] {
    Statement current(db_, path_, "SELECT state, msg FROM apps WHERE handle = ?1", action);
    current.bind(1, listed.handle);
    if (!current.step() || current.text(0) != model::to_string(AppState::kUnsubmitted) ||
        current.text(1) != listed.msg) {
      return;
    }
    if (never_scheduled) {
      Statement unlink(db_, path_, "DELETE FROM experiment_jobs WHERE handle = ?1", action);
      unlink.bind(1, listed.handle).run();
    }
    write_status(db_, path_, listed.handle, current.text(0), status, action);
    settled = true;
  });
  return settled;
}

void AppStore::add_event(const std::string& handle, const std::string& kind,
                         const std::string& detail) {
  write_transaction(db_, path_, "recording a " + kind + " event of app " + handle, [&] {
    if (!recorded_state(db_, path_, handle)) throw unknown_app(handle, path_);
    insert_event(db_, path_, handle, now_ns(), kind, detail);
  });
}

void AppStore::forget(const std::string& handle) {
  write_transaction(db_, path_, "forgetting app " + handle, [&] {
    Statement unlink(db_, path_, "DELETE FROM experiment_jobs WHERE handle = ?1",
                     "forgetting app " + handle);
    unlink.bind(1, handle).run();
    Statement remove(db_, path_, "DELETE FROM apps WHERE handle = ?1", "forgetting app " + handle);
    remove.bind(1, handle).run();
  });
}

std::optional<AppRecord> AppStore::get(const std::string& handle) const {
  Statement query(db_, path_, std::string("SELECT ") + kAppColumns + " FROM apps WHERE handle = ?1",
                  "reading app " + handle);
  query.bind(1, handle);
  if (!query.step()) return std::nullopt;
  return record_from_row(query);
}

std::optional<AppStatus> AppStore::last_status(const std::string& handle) const {
  const std::string action = "reading the status of app " + handle;
  std::optional<AppStatus> status;
  read_transaction(db_, path_, action, [&] {
    Statement app(db_, path_,
                  "SELECT app_id, state, num_restarts, msg, ui_url, structured_error_msg "
                  "FROM apps WHERE handle = ?1",
                  action);
    app.bind(1, handle);
    if (!app.step()) return;
    status.emplace();
    status->app_id = app.text(0);
    status->state = state_from_column(app.text(1));
    status->num_restarts = static_cast<int>(app.integer(2));
    status->msg = app.text(3);
    status->ui_url = app.text(4);
    status->structured_error_msg = app.text(5);

    // Roles in the order of the AppDef, then any role only the scheduler reported.
    std::map<std::string, size_t> role_index;
    Statement roles(db_, path_, "SELECT role FROM roles WHERE handle = ?1 ORDER BY position",
                    action);
    roles.bind(1, handle);
    while (roles.step()) {
      role_index.emplace(roles.text(0), status->roles.size());
      status->roles.push_back(RoleStatus{roles.text(0), {}});
    }
    Statement replicas(db_, path_,
                       "SELECT role, replica_id, state, pid, exit_code, hostname, restarts, "
                       "started_at, finished_at, msg FROM replicas WHERE handle = ?1 "
                       "ORDER BY role, replica_id",
                       action);
    replicas.bind(1, handle);
    while (replicas.step()) {
      const std::string role = replicas.text(0);
      auto [slot, added] = role_index.emplace(role, status->roles.size());
      if (added) status->roles.push_back(RoleStatus{role, {}});
      ReplicaStatus replica;
      replica.id = static_cast<int>(replicas.integer(1));
      replica.state = state_from_column(replicas.text(2));
      replica.pid = replicas.optional_integer(3);
      if (const auto exit_code = replicas.optional_integer(4)) {
        replica.exit_code = static_cast<int>(*exit_code);
      }
      replica.hostname = replicas.text(5);
      replica.restarts = static_cast<int>(replicas.integer(6));
      replica.started_at = replicas.optional_integer(7);
      replica.finished_at = replicas.optional_integer(8);
      replica.msg = replicas.text(9);
      status->roles[slot->second].replicas.push_back(std::move(replica));
    }
  });
  return status;
}

namespace {

// The WHERE clause of `filter`, with the texts its parameters ?1, ?2, ... stand for. Only the
// clauses in use appear, so SQLite can pick the matching index.
struct AppSelection {
  std::string where = "1";
  std::vector<std::string> texts;

  void add(const std::string& clause_before, const std::string& text,
           const std::string& clause_after = "") {
    texts.push_back(text);
    where += " AND " + clause_before + "?" + std::to_string(texts.size()) + clause_after;
  }
  void bind(Statement& query) const {
    for (size_t i = 0; i < texts.size(); ++i) query.bind(static_cast<int>(i + 1), texts[i]);
  }
};

AppSelection selection_of(const ListFilter& filter) {
  AppSelection selection;
  if (filter.scheduler) selection.add("scheduler = ", *filter.scheduler);
  if (filter.session) selection.add("session = ", *filter.session);
  if (filter.active_only) {
    // The states that are not terminal, named, so that the index on state serves (a NOT IN
    // reads every app: the dashboard's refresher did so four times a second).
    std::string active;
    for (AppState state : kAllStates) {
      if (is_terminal(state)) continue;
      selection.texts.push_back(model::to_string(state));
      active += (active.empty() ? "?" : ", ?") + std::to_string(selection.texts.size());
    }
    selection.where += " AND state IN (" + active + ")";
  }
  if (filter.state) selection.add("state = ", model::to_string(*filter.state));
  if (filter.after_handle) {
    selection.add("(submitted_at, rowid) < (SELECT submitted_at, rowid FROM apps WHERE handle = ",
                  *filter.after_handle, ")");
  }
  return selection;
}

}  // namespace

std::vector<AppRecord> AppStore::list(const ListFilter& filter) const {
  const AppSelection selection = selection_of(filter);
  std::string sql = std::string("SELECT ") + kAppColumns + " FROM apps WHERE " + selection.where +
                    " ORDER BY submitted_at DESC, rowid DESC";
  if (filter.limit > 0) sql += " LIMIT " + std::to_string(filter.limit);
  Statement query(db_, path_, sql, "listing apps");
  selection.bind(query);
  std::vector<AppRecord> records;
  while (query.step()) records.push_back(record_from_row(query));
  return records;
}

int64_t AppStore::count(const ListFilter& filter) const {
  const AppSelection selection = selection_of(filter);
  Statement query(db_, path_, "SELECT COUNT(*) FROM apps WHERE " + selection.where,
                  "counting apps");
  selection.bind(query);
  query.step();
  return query.integer(0);
}

std::vector<AppEvent> AppStore::events(const std::string& handle) const {
  Statement query(db_, path_,
                  "SELECT id, handle, at, kind, detail FROM events WHERE handle = ?1 ORDER BY id",
                  "reading the events of app " + handle);
  query.bind(1, handle);
  std::vector<AppEvent> events;
  while (query.step()) {
    events.push_back(
        AppEvent{query.integer(0), query.text(1), query.integer(2), query.text(3), query.text(4)});
  }
  return events;
}

std::vector<AppEvent> AppStore::events_after(int64_t after_id, int limit) const {
  Statement query(db_, path_,
                  "SELECT id, handle, at, kind, detail FROM events WHERE id > ?1 ORDER BY id "
                  "LIMIT ?2",
                  "reading the events after " + std::to_string(after_id));
  query.bind(1, after_id);
  query.bind(2, static_cast<int64_t>(limit));
  std::vector<AppEvent> events;
  while (query.step()) {
    events.push_back(
        AppEvent{query.integer(0), query.text(1), query.integer(2), query.text(3), query.text(4)});
  }
  return events;
}

}  // namespace sortie::store
