#include "store_schema.hpp"

#include <array>
#include <sortie/model/error.hpp>

#include "store_sqlite.hpp"

namespace sortie::store::detail {
namespace {

// kMigrations[n] takes the schema from version n to n + 1. Append, never edit: stores in the
// field are at every version that ever shipped.
constexpr std::array<const char*, kStoreSchemaVersion> kMigrations = {
    R"sql(
CREATE TABLE apps (
  handle TEXT PRIMARY KEY,
  scheduler TEXT NOT NULL,
  session TEXT NOT NULL,
  app_id TEXT NOT NULL,
  name TEXT NOT NULL,
  state TEXT NOT NULL,
  num_restarts INTEGER NOT NULL DEFAULT 0,
  msg TEXT NOT NULL DEFAULT '',
  ui_url TEXT NOT NULL DEFAULT '',
  structured_error_msg TEXT NOT NULL DEFAULT '',
  appdef_json TEXT NOT NULL,
  request_json TEXT NOT NULL,
  cfg_json TEXT NOT NULL,
  submitted_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX apps_by_submitted ON apps (submitted_at);
CREATE INDEX apps_by_scheduler ON apps (scheduler, submitted_at);
CREATE INDEX apps_by_session ON apps (session, submitted_at);
CREATE INDEX apps_by_state ON apps (state, submitted_at);

CREATE TABLE roles (
  handle TEXT NOT NULL REFERENCES apps (handle) ON DELETE CASCADE,
  role TEXT NOT NULL,
  num_replicas INTEGER NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (handle, role)
) WITHOUT ROWID;

CREATE TABLE replicas (
  handle TEXT NOT NULL REFERENCES apps (handle) ON DELETE CASCADE,
  role TEXT NOT NULL,
  replica_id INTEGER NOT NULL,
  state TEXT NOT NULL,
  pid INTEGER,
  exit_code INTEGER,
  hostname TEXT NOT NULL,
  restarts INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  msg TEXT NOT NULL,
  PRIMARY KEY (handle, role, replica_id)
) WITHOUT ROWID;

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  handle TEXT NOT NULL REFERENCES apps (handle) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  kind TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX events_by_handle ON events (handle, id);
)sql",
    // 2: experiments (sortie/xm.hpp). Jobs point at apps by handle; an app outlives nothing.
    R"sql(
CREATE TABLE experiments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  title TEXT NOT NULL,
  launch_dir TEXT NOT NULL,
  created_at INTEGER NOT NULL
);

CREATE TABLE work_units (
  experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
  work_unit_id INTEGER NOT NULL,
  args_json TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (experiment_id, work_unit_id)
) WITHOUT ROWID;

CREATE TABLE experiment_jobs (
  experiment_id INTEGER NOT NULL,
  work_unit_id INTEGER NOT NULL,
  job_name TEXT NOT NULL,
  full_name TEXT NOT NULL,
  handle TEXT NOT NULL REFERENCES apps (handle),
  role TEXT NOT NULL,
  PRIMARY KEY (experiment_id, work_unit_id, job_name),
  FOREIGN KEY (experiment_id, work_unit_id) REFERENCES work_units ON DELETE CASCADE
);
)sql",
    // 3: a launch in progress (the launching process and how many work units it means to add),
    // and why an experiment's launch stopped short (docs/experiments.md, "Interrupted launches").
    R"sql(
ALTER TABLE experiments ADD COLUMN launcher_pid INTEGER;
ALTER TABLE experiments ADD COLUMN launcher_started_at INTEGER;
ALTER TABLE experiments ADD COLUMN units_expected INTEGER;
ALTER TABLE experiments ADD COLUMN partial_reason TEXT NOT NULL DEFAULT '';
)sql",
    // 4: what a researcher writes on an experiment (notes, tags), what its launch ran (the
    // command, the script's text, the git state of its launch directory: sortie/xm/code_record.hpp)
    // and the digest of each job's packaged executable (docs/experiments.md, "What each unit ran").
    R"sql(
ALTER TABLE experiments ADD COLUMN notes TEXT NOT NULL DEFAULT '';
ALTER TABLE experiments ADD COLUMN code_json TEXT NOT NULL DEFAULT '';
CREATE TABLE experiment_tags (
  experiment_id INTEGER NOT NULL REFERENCES experiments (id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  PRIMARY KEY (experiment_id, tag)
) WITHOUT ROWID;
CREATE INDEX experiment_tags_by_tag ON experiment_tags (tag, experiment_id);
ALTER TABLE experiment_jobs ADD COLUMN executable_digest TEXT NOT NULL DEFAULT '';
)sql",
    // 5: a work unit re-run is a new attempt of its jobs, the earlier attempts' apps kept on record
    // (docs/experiments.md, "Re-running work units"); the primary key gains the attempt, which
    // SQLite cannot alter in place, so the table is rebuilt in the order it had.
    R"sql(
CREATE TABLE experiment_jobs_by_attempt (
  experiment_id INTEGER NOT NULL,
  work_unit_id INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  job_name TEXT NOT NULL,
  full_name TEXT NOT NULL,
  handle TEXT NOT NULL REFERENCES apps (handle),
  role TEXT NOT NULL,
  executable_digest TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (experiment_id, work_unit_id, attempt, job_name),
  FOREIGN KEY (experiment_id, work_unit_id) REFERENCES work_units ON DELETE CASCADE
);
INSERT INTO experiment_jobs_by_attempt (experiment_id, work_unit_id, attempt, job_name, full_name,
                                        handle, role, executable_digest)
  SELECT experiment_id, work_unit_id, 1, job_name, full_name, handle, role, executable_digest
  FROM experiment_jobs ORDER BY rowid;
DROP TABLE experiment_jobs;
ALTER TABLE experiment_jobs_by_attempt RENAME TO experiment_jobs;
)sql",
    // 6: what jobs measured (store_measurements.cpp, docs/store.md "Measurements"): a summary row
    // per series (app, role, replica, key), its curve thinned past docs/limits.md L-24, and how
    // far each log stream of the app was read for them.
    R"sql(
CREATE TABLE measurement_series (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  handle TEXT NOT NULL REFERENCES apps (handle) ON DELETE CASCADE,
  role TEXT NOT NULL,
  replica_id INTEGER NOT NULL,
  key TEXT NOT NULL,
  count INTEGER NOT NULL,
  stride INTEGER NOT NULL,
  stored INTEGER NOT NULL,
  first_step INTEGER NOT NULL, first_at INTEGER NOT NULL, first_value REAL NOT NULL,
  last_step INTEGER NOT NULL, last_at INTEGER NOT NULL, last_value REAL NOT NULL,
  min_seq INTEGER NOT NULL, min_step INTEGER NOT NULL, min_at INTEGER NOT NULL,
  min_value REAL NOT NULL,
  max_seq INTEGER NOT NULL, max_step INTEGER NOT NULL, max_at INTEGER NOT NULL,
  max_value REAL NOT NULL,
  UNIQUE (handle, role, replica_id, key)
);
CREATE TABLE measurement_points (
  series_id INTEGER NOT NULL REFERENCES measurement_series (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  step INTEGER NOT NULL,
  at INTEGER NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (series_id, seq)
) WITHOUT ROWID;
CREATE TABLE measurement_sources (
  handle TEXT NOT NULL REFERENCES apps (handle) ON DELETE CASCADE,
  role TEXT NOT NULL,
  replica_id INTEGER NOT NULL,
  stream TEXT NOT NULL,
  lines INTEGER NOT NULL,
  PRIMARY KEY (handle, role, replica_id, stream)
) WITHOUT ROWID;
ALTER TABLE apps ADD COLUMN measurements_finished INTEGER NOT NULL DEFAULT 0;
)sql",
    // 7: a replica's series are per rank: torchrun's `[r]:` prefix on a line names its rank (-1:
    // no prefix), so ranks that share a replica's log never share a series. The unique key gains
    // the rank, which SQLite cannot alter in place: both tables are rebuilt, the points first, so
    // that dropping the old series cascades into nothing.
    R"sql(
CREATE TABLE measurement_series_by_rank (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  handle TEXT NOT NULL REFERENCES apps (handle) ON DELETE CASCADE,
  role TEXT NOT NULL,
  replica_id INTEGER NOT NULL,
  rank INTEGER NOT NULL,
  key TEXT NOT NULL,
  count INTEGER NOT NULL,
  stride INTEGER NOT NULL,
  stored INTEGER NOT NULL,
  first_step INTEGER NOT NULL, first_at INTEGER NOT NULL, first_value REAL NOT NULL,
  last_step INTEGER NOT NULL, last_at INTEGER NOT NULL, last_value REAL NOT NULL,
  min_seq INTEGER NOT NULL, min_step INTEGER NOT NULL, min_at INTEGER NOT NULL,
  min_value REAL NOT NULL,
  max_seq INTEGER NOT NULL, max_step INTEGER NOT NULL, max_at INTEGER NOT NULL,
  max_value REAL NOT NULL,
  UNIQUE (handle, role, replica_id, rank, key)
);
INSERT INTO measurement_series_by_rank
  SELECT id, handle, role, replica_id, -1, key, count, stride, stored, first_step, first_at,
         first_value, last_step, last_at, last_value, min_seq, min_step, min_at, min_value,
         max_seq, max_step, max_at, max_value
  FROM measurement_series ORDER BY id;
CREATE TABLE measurement_points_by_rank (
  series_id INTEGER NOT NULL REFERENCES measurement_series_by_rank (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  step INTEGER NOT NULL,
  at INTEGER NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (series_id, seq)
) WITHOUT ROWID;
INSERT INTO measurement_points_by_rank SELECT series_id, seq, step, at, value
  FROM measurement_points;
DROP TABLE measurement_points;
DROP TABLE measurement_series;
ALTER TABLE measurement_series_by_rank RENAME TO measurement_series;
ALTER TABLE measurement_points_by_rank RENAME TO measurement_points;
)sql",
};

struct Marks {
  int64_t application_id = 0;
  int64_t user_version = 0;
};

Marks read_marks(sqlite3* db, const std::string& path) {
  Statement query(db, path,
                  "SELECT (SELECT application_id FROM pragma_application_id), "
                  "(SELECT user_version FROM pragma_user_version)",
                  "reading the schema version");
  query.step();
  return {query.integer(0), query.integer(1)};
}

// Throws unless the marks are sortie's at a version this build can read.
void check_marks(sqlite3* db, const std::string& path, const Marks& marks) {
  if (marks.application_id != kStoreApplicationId) {
    Statement objects(db, path, "SELECT count(*) FROM sqlite_schema", "reading the schema");
    objects.step();
    if (marks.application_id != 0 || objects.integer(0) != 0) {
      throw Error::failed_precondition(
          path +
          " is not a sortie store (it is an SQLite database of another program): "
          "set SORTIE_STATE_DIR to another directory");
    }
  }
  if (marks.user_version > kStoreSchemaVersion) {
    throw Error::failed_precondition(path + " was written by a newer sortie (schema version " +
                                     std::to_string(marks.user_version) +
                                     ", this sortie reads up to " +
                                     std::to_string(kStoreSchemaVersion) + "): upgrade sortie");
  }
}

}  // namespace

bool schema_is_current(sqlite3* db, const std::string& path) {
  // No verdict on other marks here: outside a transaction the marks and the schema could come
  // from two snapshots, and a store another process is creating meanwhile would look foreign.
  const Marks marks = read_marks(db, path);
  return marks.application_id == kStoreApplicationId && marks.user_version == kStoreSchemaVersion;
}

void migrate_schema(sqlite3* db, const std::string& path) {
  if (schema_is_current(db, path)) return;
  write_transaction(db, path, "creating or upgrading the schema", [&] {
    // Read again under the lock: another process may be migrating concurrently, and the marks and
    // the schema must come from one snapshot.
    const Marks locked = read_marks(db, path);
    check_marks(db, path, locked);
    for (int64_t version = locked.user_version; version < kStoreSchemaVersion; ++version) {
      execute(db, path, kMigrations[static_cast<size_t>(version)],
              "migrating the schema to version " + std::to_string(version + 1));
    }
    const std::string stamp = "PRAGMA application_id = " + std::to_string(kStoreApplicationId) +
                              "; PRAGMA user_version = " + std::to_string(kStoreSchemaVersion);
    execute(db, path, stamp.c_str(), "recording the schema version");
  });
}

}  // namespace sortie::store::detail
