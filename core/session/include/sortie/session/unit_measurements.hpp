// File: core/session/include/sortie/session/unit_measurements.hpp
//
// One number per key for a work unit (docs/experiments.md, "Measurements"): what `sortie
// experiments show`, the dashboard's sweep table and WorkUnit.measurements() compare units by.
#ifndef SORTIE_SESSION_UNIT_MEASUREMENTS_HPP
#define SORTIE_SESSION_UNIT_MEASUREMENTS_HPP

#include <map>
#include <sortie/session/session.hpp>
#include <sortie/store/store.hpp>
#include <string>
#include <vector>

namespace sortie::session {

// The series a unit's key is read from: that of its first job (in the unit's order) reporting
// the key; within that job's app, the first role by name, then the lowest replica, reporting it;
// within that replica, rank 0's series (torchrun's `[0]:` lines), else its lines of no rank.
// Other ranks' series are never a unit's: they are in `sortie metrics`.
struct UnitMeasurement {
  std::string handle;
  store::MeasurementSeries series;  // without its curve
};

struct UnitMeasurements {
  std::map<std::string, UnitMeasurement> by_key;
  // Why some jobs' measurements could not be brought up to date (their scheduler could not be
  // asked); what the store holds is given anyway.
  std::vector<std::string> not_refreshed;
};

// Collects the measurements of the apps `handles` (a unit's jobs, in order) and picks one series
// per key.
UnitMeasurements unit_measurements(Session& session, const std::vector<std::string>& handles);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_UNIT_MEASUREMENTS_HPP
