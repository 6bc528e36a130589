// File: core/ui/curve_downsampling.hpp
//
// A measurement curve thinned to what a chart can show (docs/ui.md, "Charts"): a chart of W
// pixels gets at most 2·W + 2 points of a curve, so opening a sweep of 100 units × 10,000 points
// moves and draws a fraction of them. The thinning keeps the shape: the first and last points,
// and of each of W runs of consecutive points its least and its greatest, in their order, so no
// peak or dip is lost. What a viewer zooms into is asked for again, thinned to that range only.
#ifndef SORTIE_UI_CURVE_DOWNSAMPLING_HPP
#define SORTIE_UI_CURVE_DOWNSAMPLING_HPP

#include <cstdint>
#include <limits>
#include <sortie/runner.hpp>
#include <vector>

namespace sortie::ui {

// Which points of a curve a chart asks for: those with a step in [from, to], thinned to a chart
// `width` pixels wide (0: every point).
struct CurveWindow {
  int64_t width = 0;
  int64_t from = std::numeric_limits<int64_t>::min();
  int64_t to = std::numeric_limits<int64_t>::max();
};
// The widest chart a request may name (a 4K screen's width).
inline constexpr int64_t kMaxChartWidth = 4096;

// `points` (in their order) as they are when there are at most 2·runs + 2 of them, else thinned
// as above. `runs` ≥ 1.
std::vector<runner::MetricPoint> downsampled(const std::vector<runner::MetricPoint>& points,
                                             int64_t runs);

}  // namespace sortie::ui

#endif  // SORTIE_UI_CURVE_DOWNSAMPLING_HPP
