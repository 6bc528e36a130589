#include "live_stream.hpp"

#include <chrono>
#include <condition_variable>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sortie/model/error.hpp>
#include <sortie/model/secret_env.hpp>
#include <sortie/session/json_text.hpp>
#include <thread>

#include "api_views.hpp"
#include "event_writer.hpp"
#include "request_input.hpp"
#include "worker_context.hpp"

namespace sortie::ui {
namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kStorePollPeriod = std::chrono::milliseconds(100);
// A view changed by a burst of events is sent once per this period, not once per event.
constexpr auto kViewPeriod = std::chrono::milliseconds(200);
constexpr int kEventsPerRead = 500;
// How often followed measurements are read (an app that ended is read to its end once, then no
// more), and, while some of its apps run that the stream does not follow, an experiment's view
// (their measurements change without a store event) made again and sent when it changed.
constexpr auto kMetricsPeriod = std::chrono::milliseconds(500);
constexpr auto kMeasuredViewPeriod = std::chrono::seconds(1);
// What the panes' threads may have ready before the viewer read it: a slow viewer slows the
// panes' reads, it does not grow the server's memory.
constexpr size_t kMaxPendingBytes = 4 << 20;

std::string event_text(const std::string& event, const std::string& data) {
  return "event: " + event + "\ndata: " + data + "\n\n";
}

std::string pane_event(const std::string& pane, const char* key, int64_t number,
                       const std::string& value_json) {
  session::JsonText out;
  out.begin_object().key("pane").string(pane).key("n").number(number).key(key).raw(value_json);
  return out.end_object().str();
}

// The panes' events, from their threads to the stream's.
class PaneFeed {
 public:
  // False once the stream stopped: the pane stops reading.
  bool push(const std::string& text) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [this] { return stopped_ || pending_.size() < kMaxPendingBytes; });
    if (stopped_) return false;
    pending_ += text;
    changed_.notify_all();
    return true;
  }
  bool running() {
    const std::lock_guard lock(mutex_);
    return !stopped_;
  }
  // What the panes sent, waiting up to `wait` for something.
  std::string take(std::chrono::milliseconds wait) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, wait, [this] { return stopped_ || !pending_.empty(); });
    std::string text;
    text.swap(pending_);
    changed_.notify_all();
    return text;
  }
  void stop() {
    const std::lock_guard lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string pending_;
  bool stopped_ = false;
};

void follow_pane(const session::SessionOptions& options, const LivePane& pane, PaneFeed& feed) {
  try {
    WorkerContext& context = WorkerContext::of_this_thread(options);
    const LogReadEnd end = read_log_lines(
        context, pane.log,
        [&](int64_t number, const std::string& line) {
          return feed.push(event_text("log", pane_event(pane.id, "line", number, line)));
        },
        [&feed] { return feed.running(); });
    if (end.ended)
      feed.push(event_text("log_end", pane_event(pane.id, "end", end.last_number, "true")));
  } catch (const std::exception& e) {
    session::JsonText error;
    error.string(e.what());
    feed.push(event_text("log_failed", pane_event(pane.id, "error", 0, error.str())));
  }
}

// The id of the store's newest event (0: none), found with a few one-row reads.
int64_t latest_event_id(const store::AppStore& store) {
  const auto exists_after = [&store](int64_t id) { return !store.events_after(id, 1).empty(); };
  int64_t below = 0;  // an id with an event after it, or 0
  int64_t step = 1024;
  while (exists_after(below + step)) {
    below += step;
    step *= 2;
  }
  // The newest id is in (below, below + step]: halve the interval.
  int64_t above = below + step;  // no event after it
  while (above - below > 1) {
    const int64_t middle = below + (above - below) / 2;
    (exists_after(middle) ? below : above) = middle;
  }
  return exists_after(below) ? store.events_after(below, 1).front().id : below;
}

// Which apps' events change the view.
class ViewScope {
 public:
  ViewScope(const store::AppStore& store, const LiveRequest& request)
      : store_(store), request_(request) {}

  // Whether an app of the experiment's latest attempts has not ended (as the store has it) and
  // is not one whose measurements the stream follows (their new points make the view due).
  bool runs_unfollowed_apps() const {
    if (request_.view != LiveView::kExperiment) return false;
    const std::set<std::string> followed(request_.metric_handles.begin(),
                                         request_.metric_handles.end());
    for (const store::WorkUnitRecord& unit : store_.work_units(request_.experiment)) {
      for (const store::ExperimentJobRecord& job : unit.jobs) {
        if (followed.count(job.handle) != 0) continue;
        const auto app = store_.get(job.handle);
        if (app && !model::is_terminal(app->state)) return true;
      }
    }
    return false;
  }

  bool changed_by(const store::AppEvent& event) {
    switch (request_.view) {
      case LiveView::kNone:
        return false;
      case LiveView::kHome:
        return true;
      case LiveView::kApp:
        return event.handle == request_.handle;
      case LiveView::kExperiment:
        return in_experiment(event.handle);
    }
    return false;
  }

 private:
  // An app is recorded with its work unit's jobs in one transaction (record_submission), so its
  // first event finds it there: an app not found then never joins the experiment.
  bool in_experiment(const std::string& handle) {
    if (members_.count(handle) != 0) return true;
    if (others_.count(handle) != 0) return false;
    for (const store::WorkUnitRecord& unit : store_.work_units(request_.experiment)) {
      for (const auto* jobs : {&unit.jobs, &unit.earlier_jobs}) {
        for (const store::ExperimentJobRecord& job : *jobs) members_.insert(job.handle);
      }
    }
    if (members_.count(handle) != 0) return true;
    others_.insert(handle);
    return false;
  }

  const store::AppStore& store_;
  const LiveRequest& request_;
  std::set<std::string> members_;
  std::set<std::string> others_;
};

std::string view_json(WorkerContext& context, const LiveRequest& request) {
  switch (request.view) {
    case LiveView::kHome: {
      session::JsonText out;
      out.begin_object().key("schema").string("sortie.ui.home/1");
      out.key("experiments").raw(experiments_json(context));
      out.key("apps").raw(apps_json(context, Page{request.limit, ""}));
      return out.end_object().str();
    }
    case LiveView::kApp:
      return app_json(context, request.handle);
    case LiveView::kExperiment: {
      auto json = experiment_json(context, request.experiment, Page{request.limit, ""});
      if (!json) throw Error::not_found("no experiment " + std::to_string(request.experiment));
      return *json;
    }
    case LiveView::kNone:
      break;
  }
  return "";
}

}  // namespace

LiveRequest live_request_of(session::Session& session, const httplib::Request& request,
                            int64_t default_limit, int64_t max_limit) {
  const auto parameter = [&request](const char* name) {
    return request.has_param(name) ? request.get_param_value(name) : std::string();
  };
  LiveRequest live;
  const std::string view = parameter("view");
  if (view == "home") {
    live.view = LiveView::kHome;
  } else if (view == "app") {
    live.view = LiveView::kApp;
    live.handle = recorded_handle(session, parameter("handle"));
  } else if (view == "experiment") {
    live.view = LiveView::kExperiment;
    live.experiment = bounded_integer("experiment", parameter("experiment"), 1,
                                      std::numeric_limits<int64_t>::max());
    if (!session.records().experiment(live.experiment)) {
      throw Error::not_found("no experiment " + std::to_string(live.experiment));
    }
  } else if (!view.empty()) {
    throw Error::invalid_argument("view '" + view.substr(0, 32) +
                                  "': expected home, app or experiment");
  }
  const std::string limit = parameter("limit");
  live.limit = limit.empty() ? default_limit : bounded_integer("limit", limit, 1, max_limit);
  const std::string events = parameter("events");
  live.events = bounded_integer("events", events.empty() ? "0" : events, 0, 1) == 1;
  live.after = resume_after(request.get_header_value("Last-Event-ID"), parameter("after"));
  const size_t panes = request.get_param_value_count("pane");
  if (panes > kMaxLivePanes) {
    throw Error::invalid_argument("pane: " + std::to_string(panes) +
                                  " log panes; a live "
                                  "stream carries at most " +
                                  std::to_string(kMaxLivePanes));
  }
  for (size_t i = 0; i < panes; ++i) {
    // Each pane is a log stream's query (docs/ui.md) with its `id` and the lines it has (`after`).
    httplib::Params params;
    httplib::detail::parse_query_text(request.get_param_value("pane", i), params);
    const auto id = params.find("id");
    if (id == params.end() || id->second.empty() || id->second.size() > 64) {
      throw Error::invalid_argument("pane: each needs an id of 1 to 64 characters");
    }
    const auto after = params.find("after");
    live.panes.push_back(
        {id->second, log_request_of(session, params, after == params.end() ? "" : after->second)});
  }
  const size_t metric_apps = request.get_param_value_count("metrics");
  if (metric_apps > kMaxLiveMetricApps) {
    throw Error::invalid_argument("metrics: " + std::to_string(metric_apps) +
                                  " apps; a live stream follows at most " +
                                  std::to_string(kMaxLiveMetricApps));
  }
  for (size_t i = 0; i < metric_apps; ++i) {
    live.metric_handles.push_back(recorded_handle(session, request.get_param_value("metrics", i)));
  }
  live.metric_window = curve_window_of(request);
  live.metric_key = parameter("key");
  if (live.metric_key.size() > 256) throw Error::invalid_argument("key: too long");
  return live;
}

void stream_live(const session::SessionOptions& options, const LiveRequest& request,
                 httplib::DataSink& sink, const std::atomic<bool>& stopping) {
  WorkerContext& context = WorkerContext::of_this_thread(options);
  const store::AppStore& store = context.session().records();
  EventWriter writer(sink);
  // Events from now on change the view; the timeline's start where it asked.
  int64_t after = request.events ? request.after : latest_event_id(store);
  ViewScope scope(store, request);
  bool view_due = request.view != LiveView::kNone;
  Clock::time_point view_sent;
  std::string last_view;
  std::map<std::string, std::map<std::string, int64_t>> metrics_sent;  // by handle, by series
  std::set<std::string> metrics_done;  // apps ended whose last points were sent
  // When the curves were read last; none yet: the stream sends them all in one event.
  Clock::time_point metrics_read;
  std::map<std::string, std::vector<std::string>> secrets;  // of each app, for its events

  PaneFeed feed;
  std::vector<std::thread> panes;
  for (const LivePane& pane : request.panes) {
    panes.emplace_back([&options, &pane, &feed] { follow_pane(options, pane, feed); });
  }
  const auto serve = [&] {
    while (!stopping) {
      if (const std::string lines = feed.take(std::chrono::milliseconds(0)); !lines.empty()) {
        if (!writer.write(lines)) return;
      }
      const auto events = store.events_after(after, kEventsPerRead);
      for (const store::AppEvent& event : events) {
        after = event.id;
        view_due = scope.changed_by(event) || view_due;
        if (!request.events) continue;
        auto app = secrets.find(event.handle);
        if (app == secrets.end()) {
          app = secrets.emplace(event.handle, recorded_secrets(store, event.handle)).first;
        }
        if (!writer.send("app", event.id, model::mask_secrets(event_json(event), app->second))) {
          return;
        }
      }
      // The curves first: the page has its view already when it opens the stream.
      if (!request.metric_handles.empty() && Clock::now() - metrics_read >= kMetricsPeriod) {
        // The curves so far of every app in one `curves` event, then each app's new points as
        // a `metrics` event: the page draws once for all, and then as points come.
        const bool first = metrics_read == Clock::time_point();
        metrics_read = Clock::now();
        session::JsonText curves;
        curves.begin_object().key("schema").string("sortie.ui.curves/1").key("apps").begin_array();
        for (const std::string& handle : request.metric_handles) {
          if (metrics_done.count(handle) != 0) continue;
          // Read before the points: when it says finished, this read has the last of them.
          const bool finished = store.measurement_progress(handle).finished;
          auto& sent = metrics_sent[handle];
          const auto before = sent;
          // Thinned to the chart's width: the curves so far at first, then a few new points.
          const std::string json =
              metrics_json(context, handle, request.metric_key, request.metric_window, sent, &sent);
          if (finished) metrics_done.insert(handle);
          if (first) {
            curves.raw(json);
          } else if (sent != before) {
            if (!writer.send("metrics", std::nullopt, json)) return;
            // New points change the units' values in the view too.
            view_due = view_due || request.view == LiveView::kExperiment;
          }
        }
        if (first && !writer.send("curves", std::nullopt, curves.end_array().end_object().str())) {
          return;
        }
      }
      if (request.view == LiveView::kExperiment && !view_due &&
          Clock::now() - view_sent >= kMeasuredViewPeriod) {
        view_due = scope.runs_unfollowed_apps();
        if (!view_due) view_sent = Clock::now();  // asked again a period later
      }
      if (view_due && Clock::now() - view_sent >= kViewPeriod) {
        view_due = false;
        view_sent = Clock::now();
        std::string view = view_json(context, request);
        if (view != last_view && !writer.send("view", std::nullopt, view)) return;
        last_view = std::move(view);
      }
      if (static_cast<int>(events.size()) == kEventsPerRead) continue;
      if (!writer.keep_alive()) return;
      // Wakes at once for a pane's lines.
      if (const std::string lines = feed.take(kStorePollPeriod); !lines.empty()) {
        if (!writer.write(lines)) return;
      }
    }
  };
  try {
    serve();
  } catch (...) {
    feed.stop();
    for (std::thread& pane : panes) pane.join();
    throw;
  }
  feed.stop();
  for (std::thread& pane : panes) pane.join();
}

}  // namespace sortie::ui
