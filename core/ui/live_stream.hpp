// File: core/ui/live_stream.hpp
//
// A page's one live connection (GET /api/live): a single server-sent event stream that carries
// everything the page shows live, so a page holds one of the browser's six connections to the
// server however many log panes it shows, and six tabs stay live. What it carries is what the
// page asked for in the request's parameters (docs/ui.md, "The live stream"):
//   - `view`: the page's document (an app, an experiment's first units, the home lists), sent
//     when the stream opens and again after each store event that changes it;
//   - `events=1`: every store event after `after`, as /api/events sends them (the timeline);
//   - `metrics` (repeated, a handle) and `key`: the apps' measured series, their new points
//     about twice a second as `metrics` events (a chart's curves);
//   - `pane` (repeated): log panes, each a log stream's parameters, its lines sent as `log`
//     events tagged with the pane's id, read on a thread of its own.
#ifndef SORTIE_UI_LIVE_STREAM_HPP
#define SORTIE_UI_LIVE_STREAM_HPP

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <sortie/session/session.hpp>
#include <string>
#include <vector>

#include "curve_downsampling.hpp"
#include "event_streams.hpp"

namespace sortie::ui {

enum class LiveView { kNone, kHome, kApp, kExperiment };

struct LivePane {
  std::string id;  // the page's name for it, echoed in each of its events
  LogStreamRequest log;
};

struct LiveRequest {
  LiveView view = LiveView::kNone;
  std::string handle;      // of kApp
  int64_t experiment = 0;  // of kExperiment
  int64_t limit = 0;       // the entries of a view's list (kHome's apps, kExperiment's units)
  bool events = false;
  int64_t after = 0;  // of `events`
  std::vector<LivePane> panes;
  std::vector<std::string> metric_handles;
  std::string metric_key;     // empty: every key
  CurveWindow metric_window;  // of the curves first sent: the chart's width
};

// The log panes one live stream may carry: each is a thread, counted in L-17.
inline constexpr size_t kMaxLivePanes = 64;
// The apps whose measurements one live stream may follow (a chart's curves).
inline constexpr size_t kMaxLiveMetricApps = 100;

// The request's subscription, every parameter checked (Error::invalid_argument names it).
LiveRequest live_request_of(session::Session& session, const httplib::Request& request,
                            int64_t default_limit, int64_t max_limit);

// Serves `request` until the viewer leaves or `stopping`; the panes' threads end with it.
void stream_live(const session::SessionOptions& options, const LiveRequest& request,
                 httplib::DataSink& sink, const std::atomic<bool>& stopping);

}  // namespace sortie::ui

#endif  // SORTIE_UI_LIVE_STREAM_HPP
