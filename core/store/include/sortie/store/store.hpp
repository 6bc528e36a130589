// File: sortie/store/store.hpp
//
// The app store: every app any sortie process submitted, with its roles, replicas and events, in
// SQLite (WAL) under the XDG state dir, so any later process can answer about any app. Each
// sortie process opens its own connection; writers retry on SQLITE_BUSY (busy_timeout) so
// concurrent CLIs never lose a write. Nothing is deleted except by `forget`.
#ifndef SORTIE_STORE_STORE_HPP
#define SORTIE_STORE_STORE_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <sortie/model/model.hpp>
#include <string>
#include <vector>

struct sqlite3;

namespace sortie::store {

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
  bool active_only = false;       // only non-terminal apps
  std::optional<AppState> state;  // only apps in this state
  int limit = 0;                  // 0 = no limit; newest first
  // Only the apps listed after the app of this handle (the last of a previous page). A handle the
  // store does not hold lists none.
  std::optional<std::string> after_handle;
};

// A launch of work units under way: set before its first unit, cleared after its last
// (docs/experiments.md, "Interrupted launches").
struct LaunchMarker {
  int64_t pid = 0;
  int64_t process_started_at = 0;  // the launcher's start, ns since epoch: tells a reused pid
  std::optional<int64_t> units_expected;  // nullopt when the launcher did not say
};

struct ExperimentRecord {
  int64_t id = 0;
  std::string title;
  std::string launch_dir;
  int64_t created_at = 0;              // ns since epoch
  std::optional<LaunchMarker> launch;  // set while a launch is (or was, if it died) under way
  std::string partial_reason;          // why a launch stopped short; empty when none did
  std::string notes;                   // free text a researcher wrote on it
  std::vector<std::string> tags;       // sorted
};

// One job of a work unit: the role `role` of the app `handle`.
struct ExperimentJobRecord {
  std::string job_name;   // as in the experiment
  std::string full_name;  // {experiment}_{work unit}_{job}
  std::string handle;
  std::string role;
  std::string executable_digest;  // the packaged executable's content identity; may be empty
  int attempt = 1;                // 1, then one more for each re-run of its work unit
};

// The work unit an app runs jobs of, recorded with the app itself (record_submission) so that an
// experiment never misses an app that may be running. Each job's handle is the app's.
struct WorkUnitLink {
  int64_t experiment_id = 0;
  int work_unit_id = 0;
  std::vector<ExperimentJobRecord> jobs;  // their `attempt` is recorded as it is
};

struct WorkUnitRecord {
  int64_t experiment_id = 0;
  int work_unit_id = 0;
  std::string args_json;  // the overrides it was added with
  int64_t created_at = 0;
  std::vector<ExperimentJobRecord> jobs;          // those of its latest attempt, which it is
  std::vector<ExperimentJobRecord> earlier_jobs;  // those of the attempts before, oldest first
};

// Measurements (store_measurements.cpp, docs/store.md "Measurements"): the numbers a job
// reported in its log lines or its metrics file, each the value of a key at a step. A replica's
// lines with torchrun's `[r]:` prefix are rank r's; the others are of no rank (kNoRank).
inline constexpr int32_t kNoRank = -1;

struct MeasurementPoint {
  std::string role;
  uint32_t replica_id = 0;
  std::string key;
  int64_t step = 0;
  int64_t at = 0;  // ns since epoch: when the job wrote it
  double value = 0;
  int32_t rank = kNoRank;
};

// One point of a stored series; `index` is its position among all the series' points (0, 1, ...),
// which stays the same when the curve is thinned.
struct SeriesPoint {
  int64_t index = 0;
  int64_t step = 0;
  int64_t at = 0;
  double value = 0;
};

// The values of one key reported by one rank of one replica of an app, in the order they were
// reported.
// `first`, `last`, `min` and `max` are exact whatever the count; `curve` holds every point up to
// docs/limits.md L-24 points, beyond it every stride-th point (evenly spaced by index, between
// L-24 / 2 and L-24 of them), then the last point.
struct MeasurementSeries {
  std::string role;
  uint32_t replica_id = 0;
  int32_t rank = kNoRank;
  std::string key;
  int64_t count = 0;  // points reported
  SeriesPoint first, last, min, max;
  std::vector<SeriesPoint> curve;  // empty when not asked for
};

// How many lines of one log stream ("stdout", "stderr", "metrics") of one replica were read.
struct MeasurementSource {
  std::string role;
  uint32_t replica_id = 0;
  std::string stream;
  int64_t lines = 0;
  bool operator==(const MeasurementSource&) const = default;
};

// How far an app's logs were read for measurements.
struct MeasurementProgress {
  std::vector<MeasurementSource> sources;  // by role, replica, stream
  bool finished = false;  // its logs were read to their end after it ended: nothing more comes
  bool operator==(const MeasurementProgress&) const = default;
};

// A status read from its scheduler for an app the caller listed in state `listed`.
struct RefreshedStatus {
  std::string handle;
  AppState listed = AppState::kUnknown;
  AppStatus status;
};

class AppStore {
 public:
  // Opens (creating if needed) the database at `path`, creating parent directories, WAL mode,
  // schema migrations. Throws Error naming the path and what to do (e.g. disk full, read-only).
  static std::unique_ptr<AppStore> open(const std::string& path);
  // Opens the database at `path` for reading only (store_read_only.cpp): creates, migrates and
  // writes nothing, so a full disk or a read-only directory still reads. A store not created yet
  // reads as empty. nullptr when its schema is older than this build's (open() migrates it).
  // Meant to be used const: it is for reads only.
  static std::unique_ptr<AppStore> open_read_only(const std::string& path);
  // $SORTIE_STATE_DIR/sortie.db, else $XDG_STATE_HOME/sortie/sortie.db, else
  // ~/.local/state/sortie/sortie.db.
  static std::string default_path();
  ~AppStore();
  AppStore(const AppStore&) = delete;
  // True for the empty stand-in open_read_only gives when no store existed yet.
  bool is_placeholder() const { return placeholder_; }
  AppStore& operator=(const AppStore&) = delete;

  // Inserts a new app (and its roles from appdef_json) with a "submitted" event and, in the same
  // transaction, the jobs of `unit` it runs. A unit that does not exist: Error, nothing recorded.
  void record_submission(const AppRecord& record,
                         const std::optional<WorkUnitLink>& unit = std::nullopt);
  // Replaces the app's state, restarts, msg and replica rows with `status`; appends a "state"
  // event when the app state changed. Unknown handle: Error(NOT_FOUND).
  void record_status(const std::string& handle, const AppStatus& status);
  // record_status for each of `refreshed` in one transaction, so that refreshing many apps costs
  // one commit; one whose app is no longer recorded (forgotten) or no longer in the state its
  // caller read (another process recorded a later one meanwhile) is skipped.
  void record_statuses(const std::vector<RefreshedStatus>& refreshed);
  void add_event(const std::string& handle, const std::string& kind, const std::string& detail);
  // Deletes the app with its roles, replicas, events and experiment jobs: for a submission its
  // scheduler refused, so the app never existed. No-op for an unknown handle.
  void forget(const std::string& handle);
  // Settles a submission whose submitter died (sortie/session/submission.hpp): records `status`
  // only if the app, read again under the write lock, is still UNSUBMITTED with `listed`'s
  // message; `never_scheduled` (its scheduler never got it) also takes it out of its work units,
  // keeping its own record, so its work unit reads as not launched. False, writing nothing, when
  // since `listed` was read its submitter confirmed it, or another process settled or forgot it.
  bool settle_submission(const AppRecord& listed, const AppStatus& status, bool never_scheduled);

  std::optional<AppRecord> get(const std::string& handle) const;
  // The last recorded status (app + replicas), or nullopt for an unknown handle.
  std::optional<AppStatus> last_status(const std::string& handle) const;
  std::vector<AppRecord> list(const ListFilter& filter) const;
  // How many apps `list` would give without the filter's limit.
  int64_t count(const ListFilter& filter) const;
  std::vector<AppEvent> events(const std::string& handle) const;
  // Every app's events with an id above `after_id`, oldest first, at most `limit` (ids only grow,
  // so a follower resumes from the last id it saw without duplicates or gaps).
  std::vector<AppEvent> events_after(int64_t after_id, int limit) const;

  // Experiments (store_experiments.cpp). Ids come from the store: 1, 2, ... per store.
  // One transaction records it with what its launch ran (`code_json`, sortie.code_record/1) and,
  // when the first unit is launched with it, the launch's mark: no kill leaves an experiment that
  // has neither units nor a mark (docs/experiments.md XF-27).
  int64_t create_experiment(const std::string& title, const std::string& launch_dir,
                            const std::optional<LaunchMarker>& launch = std::nullopt,
                            const std::string& code_json = "");
  // Reserves the next work unit id of the experiment (1, 2, ...), atomically across processes.
  int reserve_work_unit(int64_t experiment_id, const std::string& args_json);
  // Marks `launch` as under way on the experiment; finish_launch clears the mark, recording
  // `partial_reason` when the launch stopped short (empty when it did not).
  void begin_launch(int64_t experiment_id, const LaunchMarker& launch);
  void finish_launch(int64_t experiment_id, const std::string& partial_reason);
  // finish_launch for a launcher that died (sortie/session/launch_marker.hpp), only while the
  // experiment still carries `listed`'s mark: false, writing nothing, when since `listed` was
  // read its launcher finished the launch, or another process settled it.
  bool settle_launch(const ExperimentRecord& listed, const std::string& partial_reason);
  // Replaces the experiment's notes; adds and removes tags (absent ones are ignored) in one
  // transaction. Unknown experiment: Error(NOT_FOUND).
  void set_experiment_notes(int64_t experiment_id, const std::string& notes);
  void edit_experiment_tags(int64_t experiment_id, const std::vector<std::string>& add,
                            const std::vector<std::string>& remove);
  // What the experiment's launch ran, as create_experiment recorded it; empty for an experiment
  // recorded before schema version 4.
  std::string experiment_code(int64_t experiment_id) const;
  std::optional<ExperimentRecord> experiment(int64_t id) const;
  // Newest first; 0 = all. A non-empty `tag` keeps the experiments that carry it.
  std::vector<ExperimentRecord> experiments(int limit, const std::string& tag = "") const;
  std::vector<ExperimentRecord> launching_experiments() const;          // those with a launch mark
  std::vector<WorkUnitRecord> work_units(int64_t experiment_id) const;  // by id

  // Measurements (store_measurements.cpp). Where the app's log reading for them stands (nothing
  // read: no sources, not finished; an unknown handle reads the same).
  MeasurementProgress measurement_progress(const std::string& handle) const;
  // Adds `points`, in the order they were reported, and moves the app's progress from `from` to
  // `to`, in one transaction and only while the stored progress is still `from`: false, writing
  // nothing, when another process recorded those lines first. A series past docs/limits.md L-24
  // points is thinned; the points of an app's series past L-25 are not recorded. Unknown handle:
  // Error(NOT_FOUND).
  bool record_measurements(const std::string& handle, const MeasurementProgress& from,
                           const MeasurementProgress& to,
                           const std::vector<MeasurementPoint>& points);
  // The app's series by role, replica, rank and key; only `key`'s when it is not empty; with their
  // curves when `with_curve`. Empty for an unknown handle.
  std::vector<MeasurementSeries> measurements(const std::string& handle,
                                              const std::string& key = "",
                                              bool with_curve = true) const;

 private:
  explicit AppStore(sqlite3* db, std::string path);
  sqlite3* db_;
  std::string path_;
  bool placeholder_ = false;
  int64_t wal_frames_ = 0;  // the WAL's size after this connection's last commit
};

}  // namespace sortie::store

#endif  // SORTIE_STORE_STORE_HPP
