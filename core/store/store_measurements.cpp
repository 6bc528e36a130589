// The measurement tables of the app store (schema version 7, store_schema.cpp): one summary row
// per series, its curve thinned past docs/limits.md L-24, and how far each log stream was read.
#include <map>
#include <set>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <sortie/store/store.hpp>
#include <tuple>

#include "store_sqlite.hpp"

namespace sortie::store {
namespace {

using detail::read_transaction;
using detail::Statement;
using detail::write_transaction;

// role, replica, rank, key
using SeriesKey = std::tuple<std::string, uint32_t, int32_t, std::string>;

constexpr const char* kSeriesColumns =
    "id, role, replica_id, key, count, stride, stored, first_step, first_at, first_value, "
    "last_step, last_at, last_value, min_seq, min_step, min_at, min_value, max_seq, max_step, "
    "max_at, max_value, rank";

// A series as the writer keeps it while it adds points.
struct StoredSeries {
  int64_t id = 0;  // 0: not in the store yet
  int64_t stride = 1;
  int64_t stored = 0;
  MeasurementSeries summary;
};

SeriesPoint point_at(const Statement& row, int column, int64_t index) {
  return SeriesPoint{index, row.integer(column), row.integer(column + 1), row.real(column + 2)};
}

StoredSeries series_from(const Statement& row) {
  StoredSeries series;
  series.id = row.integer(0);
  series.summary.role = row.text(1);
  series.summary.replica_id = static_cast<uint32_t>(row.integer(2));
  series.summary.key = row.text(3);
  series.summary.count = row.integer(4);
  series.stride = row.integer(5);
  series.stored = row.integer(6);
  series.summary.first = point_at(row, 7, 0);
  series.summary.last = point_at(row, 10, series.summary.count - 1);
  series.summary.min = point_at(row, 14, row.integer(13));
  series.summary.max = point_at(row, 18, row.integer(17));
  series.summary.rank = static_cast<int32_t>(row.integer(21));
  return series;
}

MeasurementProgress read_progress(sqlite3* db, const std::string& path, const std::string& handle,
                                  const std::string& action) {
  MeasurementProgress progress;
  Statement sources(db, path,
                    "SELECT role, replica_id, stream, lines FROM measurement_sources "
                    "WHERE handle = ?1 ORDER BY role, replica_id, stream",
                    action);
  sources.bind(1, handle);
  while (sources.step()) {
    progress.sources.push_back(MeasurementSource{sources.text(0),
                                                 static_cast<uint32_t>(sources.integer(1)),
                                                 sources.text(2), sources.integer(3)});
  }
  Statement finished(db, path, "SELECT measurements_finished FROM apps WHERE handle = ?1", action);
  finished.bind(1, handle);
  progress.finished = finished.step() && finished.integer(0) != 0;
  return progress;
}

// Adds one point to `series`, storing it on its curve when it falls on the stride, and halves
// the curve (every other stored point, by index) when it passes `cap`.
void add_point(sqlite3* db, const std::string& path, StoredSeries& series,
               const MeasurementPoint& point, int64_t cap, Statement& insert,
               const std::string& action) {
  MeasurementSeries& summary = series.summary;
  const SeriesPoint added{summary.count, point.step, point.at, point.value};
  if (summary.count == 0) {
    summary.first = summary.min = summary.max = added;
  } else {
    if (point.value < summary.min.value) summary.min = added;
    if (point.value > summary.max.value) summary.max = added;
  }
  summary.last = added;
  ++summary.count;
  if (added.index % series.stride != 0) return;
  insert.reset();
  insert.bind(1, series.id)
      .bind(2, added.index)
      .bind(3, added.step)
      .bind(4, added.at)
      .bind_real(5, added.value)
      .run();
  if (++series.stored <= cap) return;
  Statement thin(db, path,
                 "DELETE FROM measurement_points WHERE series_id = ?1 AND (seq / ?2) % 2 = 1",
                 action);
  thin.bind(1, series.id).bind(2, series.stride).run();
  series.stored -= sqlite3_changes(db);
  series.stride *= 2;
}

// Inserts the series row of a series not in the store yet, so its points can refer to it.
void insert_series(sqlite3* db, const std::string& path, const std::string& handle,
                   StoredSeries& series, const std::string& action) {
  Statement insert(db, path,
                   "INSERT INTO measurement_series (handle, role, replica_id, rank, key, count, "
                   "stride, stored, first_step, first_at, first_value, last_step, last_at, "
                   "last_value, min_seq, min_step, min_at, min_value, max_seq, max_step, max_at, "
                   "max_value) VALUES (?1, ?2, ?3, ?5, ?4, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
                   "0, 0, 0, 0) RETURNING id",
                   action);
  insert.bind(1, handle)
      .bind(2, series.summary.role)
      .bind(3, int64_t{series.summary.replica_id})
      .bind(4, series.summary.key)
      .bind(5, int64_t{series.summary.rank});
  insert.step();
  series.id = insert.integer(0);
}

void update_series(sqlite3* db, const std::string& path, const StoredSeries& series,
                   const std::string& action) {
  const MeasurementSeries& summary = series.summary;
  Statement update(db, path,
                   "UPDATE measurement_series SET count = ?2, stride = ?3, stored = ?4, "
                   "first_step = ?5, first_at = ?6, first_value = ?7, last_step = ?8, "
                   "last_at = ?9, last_value = ?10, min_seq = ?11, min_step = ?12, min_at = ?13, "
                   "min_value = ?14, max_seq = ?15, max_step = ?16, max_at = ?17, max_value = ?18 "
                   "WHERE id = ?1",
                   action);
  update.bind(1, series.id).bind(2, summary.count).bind(3, series.stride).bind(4, series.stored);
  const auto bind_point = [&](int column, const SeriesPoint& point) {
    update.bind(column, point.step).bind(column + 1, point.at).bind_real(column + 2, point.value);
  };
  bind_point(5, summary.first);
  bind_point(8, summary.last);
  update.bind(11, summary.min.index);
  bind_point(12, summary.min);
  update.bind(15, summary.max.index);
  bind_point(16, summary.max);
  update.run();
}

void write_progress(sqlite3* db, const std::string& path, const std::string& handle,
                    const MeasurementProgress& progress, const std::string& action) {
  Statement clear(db, path, "DELETE FROM measurement_sources WHERE handle = ?1", action);
  clear.bind(1, handle).run();
  Statement insert(db, path,
                   "INSERT INTO measurement_sources (handle, role, replica_id, stream, lines) "
                   "VALUES (?1, ?2, ?3, ?4, ?5)",
                   action);
  for (const MeasurementSource& source : progress.sources) {
    insert.reset();
    insert.bind(1, handle)
        .bind(2, source.role)
        .bind(3, int64_t{source.replica_id})
        .bind(4, source.stream)
        .bind(5, source.lines)
        .run();
  }
  Statement finished(db, path, "UPDATE apps SET measurements_finished = ?2 WHERE handle = ?1",
                     action);
  finished.bind(1, handle).bind(2, int64_t{progress.finished ? 1 : 0}).run();
}

}  // namespace

MeasurementProgress AppStore::measurement_progress(const std::string& handle) const {
  MeasurementProgress progress;
  const std::string action = "reading the measurement progress of app " + handle;
  read_transaction(db_, path_, action,
                   [&] { progress = read_progress(db_, path_, handle, action); });
  return progress;
}

bool AppStore::record_measurements(const std::string& handle, const MeasurementProgress& from,
                                   const MeasurementProgress& to,
                                   const std::vector<MeasurementPoint>& points) {
  const int64_t cap = static_cast<int64_t>(limits::value(limits::kMeasurementPoints));
  const size_t max_series = limits::value(limits::kMeasurementSeries);
  const std::string action = "recording measurements of app " + handle;
  bool recorded = false;
  write_transaction(db_, path_, action, [&] {
    Statement app(db_, path_, "SELECT 1 FROM apps WHERE handle = ?1", action);
    app.bind(1, handle);
    if (!app.step()) {
      throw Error::not_found("no app " + handle + " in the store " + path_);
    }
    if (read_progress(db_, path_, handle, action) != from) return;
    std::map<SeriesKey, StoredSeries> series;
    Statement existing(
        db_, path_,
        std::string("SELECT ") + kSeriesColumns + " FROM measurement_series WHERE handle = ?1",
        action);
    existing.bind(1, handle);
    while (existing.step()) {
      StoredSeries stored = series_from(existing);
      const MeasurementSeries& summary = stored.summary;
      series.emplace(SeriesKey{summary.role, summary.replica_id, summary.rank, summary.key},
                     std::move(stored));
    }
    std::set<SeriesKey> changed;
    Statement insert(db_, path_,
                     "INSERT INTO measurement_points (series_id, seq, step, at, value) "
                     "VALUES (?1, ?2, ?3, ?4, ?5)",
                     action);
    for (const MeasurementPoint& point : points) {
      const SeriesKey key{point.role, point.replica_id, point.rank, point.key};
      auto found = series.find(key);
      if (found == series.end()) {
        if (series.size() >= max_series) continue;
        StoredSeries added;
        added.summary.role = point.role;
        added.summary.replica_id = point.replica_id;
        added.summary.rank = point.rank;
        added.summary.key = point.key;
        insert_series(db_, path_, handle, added, action);
        found = series.emplace(key, std::move(added)).first;
      }
      add_point(db_, path_, found->second, point, cap, insert, action);
      changed.insert(key);
    }
    for (const SeriesKey& key : changed) update_series(db_, path_, series.at(key), action);
    write_progress(db_, path_, handle, to, action);
    recorded = true;
  });
  return recorded;
}

std::vector<MeasurementSeries> AppStore::measurements(const std::string& handle,
                                                      const std::string& key,
                                                      bool with_curve) const {
  std::vector<MeasurementSeries> found;
  const std::string action = "reading the measurements of app " + handle;
  read_transaction(db_, path_, action, [&] {
    Statement query(db_, path_,
                    std::string("SELECT ") + kSeriesColumns +
                        " FROM measurement_series WHERE handle = ?1 AND (?2 = '' OR key = ?2) "
                        "ORDER BY role, replica_id, rank, key",
                    action);
    query.bind(1, handle).bind(2, key);
    std::vector<int64_t> ids;
    while (query.step()) {
      ids.push_back(query.integer(0));
      found.push_back(series_from(query).summary);
    }
    if (!with_curve) return;
    Statement curve(db_, path_,
                    "SELECT seq, step, at, value FROM measurement_points WHERE series_id = ?1 "
                    "ORDER BY seq",
                    action);
    for (size_t i = 0; i < ids.size(); ++i) {
      curve.reset();
      curve.bind(1, ids[i]);
      MeasurementSeries& series = found[i];
      while (curve.step()) series.curve.push_back(point_at(curve, 1, curve.integer(0)));
      if (series.curve.empty() || series.curve.back().index != series.last.index) {
        series.curve.push_back(series.last);
      }
    }
  });
  return found;
}

}  // namespace sortie::store
