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
    // By role, replica and key: the first series of a key is its lowest replica's.
    for (store::MeasurementSeries& series : session.records().measurements(handle, "", false)) {
      const std::string key = series.key;
      unit.by_key.try_emplace(key, UnitMeasurement{handle, std::move(series)});
    }
  }
  return unit;
}

}  // namespace sortie::session
