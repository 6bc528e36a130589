#include "curve_downsampling.hpp"

#include <cstddef>

namespace sortie::ui {

std::vector<runner::MetricPoint> downsampled(const std::vector<runner::MetricPoint>& points,
                                             int64_t runs) {
  const auto count = static_cast<int64_t>(points.size());
  if (count <= 2 * runs + 2) return points;
  std::vector<runner::MetricPoint> kept{points.front()};
  // The first and the last point stay whatever run they fall in; the runs cover those between.
  const int64_t inner = count - 2;
  for (int64_t run = 0; run < runs; ++run) {
    const int64_t begin = 1 + run * inner / runs;
    const int64_t end = 1 + (run + 1) * inner / runs;
    if (begin == end) continue;
    int64_t low = begin, high = begin;
    for (int64_t i = begin; i < end; ++i) {
      const double value = points[static_cast<size_t>(i)].value;
      if (value < points[static_cast<size_t>(low)].value) low = i;
      if (value > points[static_cast<size_t>(high)].value) high = i;
    }
    const int64_t earlier = low < high ? low : high, later = low < high ? high : low;
    kept.push_back(points[static_cast<size_t>(earlier)]);
    if (later != earlier) kept.push_back(points[static_cast<size_t>(later)]);
  }
  kept.push_back(points.back());
  return kept;
}

}  // namespace sortie::ui
