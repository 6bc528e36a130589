// The experiment tables of the app store (schema versions 2 to 5, store_schema.cpp).
#include <algorithm>
#include <sortie/model/error.hpp>
#include <sortie/store/store.hpp>

#include "store_sqlite.hpp"

namespace sortie::store {
namespace {

using detail::now_ns;
using detail::read_transaction;
using detail::Statement;
using detail::write_transaction;

// Tags cannot hold a newline (sortie/xm.hpp), so one text carries them all.
constexpr const char* kExperimentColumns =
    "id, title, launch_dir, created_at, launcher_pid, launcher_started_at, units_expected, "
    "partial_reason, notes, "
    "(SELECT group_concat(tag, char(10)) FROM experiment_tags WHERE experiment_id = id)";

std::vector<std::string> tags_from(const std::string& joined) {
  std::vector<std::string> tags;
  for (size_t start = 0; start < joined.size();) {
    const size_t end = std::min(joined.find('\n', start), joined.size());
    tags.push_back(joined.substr(start, end - start));
    start = end + 1;
  }
  std::sort(tags.begin(), tags.end());
  return tags;
}

ExperimentRecord experiment_from(const Statement& row) {
  ExperimentRecord record;
  record.id = row.integer(0);
  record.title = row.text(1);
  record.launch_dir = row.text(2);
  record.created_at = row.integer(3);
  if (const auto pid = row.optional_integer(4)) {
    record.launch = LaunchMarker{*pid, row.integer(5), row.optional_integer(6)};
  }
  record.partial_reason = row.text(7);
  record.notes = row.text(8);
  record.tags = tags_from(row.text(9));
  return record;
}

// The experiments `clauses` (WHERE ... ORDER BY ...) select, at most `limit` (0: all); `clauses`
// may name one text parameter ?2, bound to `parameter`.
std::vector<ExperimentRecord> select_experiments(sqlite3* db, const std::string& path,
                                                 const std::string& clauses, int limit,
                                                 const std::string& action,
                                                 const std::string& parameter = "") {
  std::vector<ExperimentRecord> found;
  Statement query(
      db, path,
      std::string("SELECT ") + kExperimentColumns + " FROM experiments " + clauses + " LIMIT ?1",
      action);
  query.bind(1, int64_t{limit > 0 ? limit : -1});
  if (clauses.find("?2") != std::string::npos) query.bind(2, parameter);
  while (query.step()) found.push_back(experiment_from(query));
  return found;
}

Error unknown_experiment(int64_t id, const std::string& path) {
  return Error::not_found("no experiment " + std::to_string(id) + " in the store " + path);
}

// Sets the experiment's launch mark (none: cleared) and partial_reason.
void write_launch(sqlite3* db, const std::string& path, int64_t experiment_id,
                  const std::optional<LaunchMarker>& launch, const std::string& partial_reason,
                  const std::string& action) {
  write_transaction(db, path, action, [&] {
    Statement update(db, path,
                     "UPDATE experiments SET launcher_pid = ?2, launcher_started_at = ?3, "
                     "units_expected = ?4, partial_reason = ?5 WHERE id = ?1",
                     action);
    update.bind(1, experiment_id)
        .bind(2, launch ? std::optional<int64_t>(launch->pid) : std::nullopt)
        .bind(3, launch ? std::optional<int64_t>(launch->process_started_at) : std::nullopt)
        .bind(4, launch ? launch->units_expected : std::nullopt)
        .bind(5, partial_reason)
        .run();
    if (sqlite3_changes(db) == 0) throw unknown_experiment(experiment_id, path);
  });
}

// Runs `sql`, an UPDATE of the experiment ?1 setting the text ?2, in a write transaction; an
// experiment that does not exist is Error(NOT_FOUND).
void update_experiment(sqlite3* db, const std::string& path, int64_t experiment_id,
                       const std::string& sql, const std::string& text, const std::string& action) {
  write_transaction(db, path, action, [&] {
    Statement update(db, path, sql, action);
    update.bind(1, experiment_id).bind(2, text).run();
    if (sqlite3_changes(db) == 0) throw unknown_experiment(experiment_id, path);
  });
}

}  // namespace

int64_t AppStore::create_experiment(const std::string& title, const std::string& launch_dir,
                                    const std::optional<LaunchMarker>& launch,
                                    const std::string& code_json) {
  int64_t id = 0;
  const std::string action = "recording experiment '" + title + "'";
  write_transaction(db_, path_, action, [&] {
    Statement insert(db_, path_,
                     "INSERT INTO experiments (title, launch_dir, created_at, launcher_pid, "
                     "launcher_started_at, units_expected, code_json) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) RETURNING id",
                     action);
    insert.bind(1, title)
        .bind(2, launch_dir)
        .bind(3, now_ns())
        .bind(4, launch ? std::optional<int64_t>(launch->pid) : std::nullopt)
        .bind(5, launch ? std::optional<int64_t>(launch->process_started_at) : std::nullopt)
        .bind(6, launch ? launch->units_expected : std::nullopt)
        .bind(7, code_json);
    insert.step();
    id = insert.integer(0);
    insert.step();  // finishes the statement before the commit
  });
  return id;
}

int AppStore::reserve_work_unit(int64_t experiment_id, const std::string& args_json) {
  const std::string action = "adding a work unit to experiment " + std::to_string(experiment_id);
  int64_t id = 0;
  write_transaction(db_, path_, action, [&] {
    if (!experiment(experiment_id)) throw unknown_experiment(experiment_id, path_);
    Statement insert(db_, path_,
                     "INSERT INTO work_units (experiment_id, work_unit_id, args_json, created_at) "
                     "SELECT ?1, COALESCE(MAX(work_unit_id), 0) + 1, ?2, ?3 FROM work_units "
                     "WHERE experiment_id = ?1 RETURNING work_unit_id",
                     action);
    insert.bind(1, experiment_id).bind(2, args_json).bind(3, now_ns());
    insert.step();
    id = insert.integer(0);
    insert.step();
  });
  return static_cast<int>(id);
}

void AppStore::begin_launch(int64_t experiment_id, const LaunchMarker& launch) {
  write_launch(db_, path_, experiment_id, launch, "",
               "marking the launch of experiment " + std::to_string(experiment_id));
}

void AppStore::finish_launch(int64_t experiment_id, const std::string& partial_reason) {
  write_launch(db_, path_, experiment_id, std::nullopt, partial_reason,
               "recording the end of the launch of experiment " + std::to_string(experiment_id));
}

bool AppStore::settle_launch(const ExperimentRecord& listed, const std::string& partial_reason) {
  if (!listed.launch) return false;
  const std::string action = "settling the launch of experiment " + std::to_string(listed.id);
  bool settled = false;
  write_transaction(db_, path_, action, [&] {
    Statement update(db_, path_,
                     "UPDATE experiments SET launcher_pid = NULL, launcher_started_at = NULL, "
                     "units_expected = NULL, partial_reason = ?2 "
                     "WHERE id = ?1 AND launcher_pid = ?3 AND launcher_started_at = ?4",
                     action);
    update.bind(1, listed.id)
        .bind(2, partial_reason)
        .bind(3, listed.launch->pid)
        .bind(4, listed.launch->process_started_at)
        .run();
    settled = sqlite3_changes(db_) > 0;
  });
  return settled;
}

void AppStore::set_experiment_notes(int64_t experiment_id, const std::string& notes) {
  update_experiment(db_, path_, experiment_id, "UPDATE experiments SET notes = ?2 WHERE id = ?1",
                    notes, "writing the notes of experiment " + std::to_string(experiment_id));
}

void AppStore::edit_experiment_tags(int64_t experiment_id, const std::vector<std::string>& add,
                                    const std::vector<std::string>& remove) {
  const std::string action = "editing the tags of experiment " + std::to_string(experiment_id);
  write_transaction(db_, path_, action, [&] {
    if (!experiment(experiment_id)) throw unknown_experiment(experiment_id, path_);
    Statement insert(db_, path_,
                     "INSERT OR IGNORE INTO experiment_tags (experiment_id, tag) VALUES (?1, ?2)",
                     action);
    for (const std::string& tag : add) {
      insert.bind(1, experiment_id).bind(2, tag).run();
      insert.reset();
    }
    Statement erase(db_, path_, "DELETE FROM experiment_tags WHERE experiment_id = ?1 AND tag = ?2",
                    action);
    for (const std::string& tag : remove) {
      erase.bind(1, experiment_id).bind(2, tag).run();
      erase.reset();
    }
  });
}

std::string AppStore::experiment_code(int64_t experiment_id) const {
  const std::string action = "reading what experiment " + std::to_string(experiment_id) + " ran";
  Statement query(db_, path_, "SELECT code_json FROM experiments WHERE id = ?1", action);
  query.bind(1, experiment_id);
  if (!query.step()) throw unknown_experiment(experiment_id, path_);
  return query.text(0);
}

std::optional<ExperimentRecord> AppStore::experiment(int64_t id) const {
  const std::vector<ExperimentRecord> found =
      select_experiments(db_, path_, "WHERE id = " + std::to_string(id), 0,
                         "reading experiment " + std::to_string(id));
  if (found.empty()) return std::nullopt;
  return found.front();
}

std::vector<ExperimentRecord> AppStore::experiments(int limit, const std::string& tag) const {
  if (tag.empty()) {
    return select_experiments(db_, path_, "ORDER BY id DESC", limit, "listing experiments");
  }
  return select_experiments(
      db_, path_,
      "WHERE id IN (SELECT experiment_id FROM experiment_tags WHERE tag = ?2) ORDER BY id DESC",
      limit, "listing the experiments tagged '" + tag + "'", tag);
}

std::vector<ExperimentRecord> AppStore::launching_experiments() const {
  return select_experiments(db_, path_, "WHERE launcher_pid IS NOT NULL ORDER BY id", 0,
                            "listing the experiments being launched");
}

std::vector<WorkUnitRecord> AppStore::work_units(int64_t experiment_id) const {
  std::vector<WorkUnitRecord> units;
  const std::string action =
      "reading the work units of experiment " + std::to_string(experiment_id);
  read_transaction(db_, path_, action, [&] {
    Statement query(db_, path_,
                    "SELECT work_unit_id, args_json, created_at FROM work_units "
                    "WHERE experiment_id = ?1 ORDER BY work_unit_id",
                    action);
    query.bind(1, experiment_id);
    while (query.step()) {
      WorkUnitRecord unit;
      unit.experiment_id = experiment_id;
      unit.work_unit_id = static_cast<int>(query.integer(0));
      unit.args_json = query.text(1);
      unit.created_at = query.integer(2);
      units.push_back(std::move(unit));
    }
    Statement jobs(db_, path_,
                   "SELECT work_unit_id, job_name, full_name, handle, role, executable_digest, "
                   "attempt, MAX(attempt) OVER (PARTITION BY work_unit_id) FROM experiment_jobs "
                   "WHERE experiment_id = ?1 ORDER BY work_unit_id, attempt, rowid",
                   action);
    jobs.bind(1, experiment_id);
    size_t unit = 0;
    while (jobs.step()) {
      const int work_unit_id = static_cast<int>(jobs.integer(0));
      while (unit < units.size() && units[unit].work_unit_id < work_unit_id) ++unit;
      if (unit == units.size()) break;
      const int attempt = static_cast<int>(jobs.integer(6));
      (attempt == jobs.integer(7) ? units[unit].jobs : units[unit].earlier_jobs)
          .push_back(
              {jobs.text(1), jobs.text(2), jobs.text(3), jobs.text(4), jobs.text(5), attempt});
    }
  });
  return units;
}

}  // namespace sortie::store
