// Runner::metrics: an app's measurements, read from its logs into the store first.
#include <sortie/session/measurement_collector.hpp>

#include "runner_impl.hpp"

namespace sortie::runner {
namespace {

MetricPoint point_of(const store::SeriesPoint& point) {
  return MetricPoint{point.index, point.step, point.at, point.value};
}

}  // namespace

std::vector<MetricSeries> Runner::metrics(const std::string& handle, const std::string& key) {
  // Looked up afresh, so an app that ended since is read to its end.
  const session::AppLookup& app = impl_->look_up(handle);
  if (!app.status) throw unknown_app(app.handle.str());
  session::collect_measurements(impl_->session(), app);
  std::vector<MetricSeries> found;
  for (const store::MeasurementSeries& series :
       impl_->session().records().measurements(app.handle.str(), key)) {
    MetricSeries& added = found.emplace_back();
    added.role = series.role;
    added.replica = series.replica_id;
    added.rank = series.rank;
    added.key = series.key;
    added.count = series.count;
    added.first = point_of(series.first);
    added.last = point_of(series.last);
    added.min = point_of(series.min);
    added.max = point_of(series.max);
    for (const store::SeriesPoint& point : series.curve) added.points.push_back(point_of(point));
  }
  return found;
}

}  // namespace sortie::runner
