// One number per key for a work unit (unit_measurements.hpp).
#include <sortie/model/error.hpp>
#include <sortie/session/app_lookup.hpp>
#include <sortie/session/measurement_collector.hpp>
#include <sortie/session/unit_measurements.hpp>

namespace sortie::session {

UnitMeasurements unit_measurements(Session& session, const std::vector<std::string>& handles) {
  UnitMeasurements unit;
  for (const std::string& handle : handles) {
    try {
      // An ended app read to its end (usually by the lookup that gave its unit's state) is not
      // asked about again.
      if (!session.records().measurement_progress(handle).finished) {
        collect_measurements(session, lookup_app(session, handle));
      }
    } catch (const Error& error) {
      unit.not_refreshed.push_back(handle + ": " + error.what());
    }
    // By role, replica, rank and key: the first series of a key is its lowest replica's, whose
    // lines of no rank (-1) come before rank 0's, which replace them.
    for (store::MeasurementSeries& series : session.records().measurements(handle, "", false)) {
      if (series.rank > 0) continue;
      const std::string key = series.key;
      auto [chosen, added] = unit.by_key.try_emplace(key, UnitMeasurement{handle, series});
      const store::MeasurementSeries& held = chosen->second.series;
      if (!added && series.rank == 0 && held.rank == store::kNoRank &&
          chosen->second.handle == handle && held.role == series.role &&
          held.replica_id == series.replica_id) {
        chosen->second.series = std::move(series);
      }
    }
  }
  return unit;
}

}  // namespace sortie::session
