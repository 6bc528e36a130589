// The dashboard's routes: the page (one HTML document for every page path, its script and style
// sheet from web_assets), the JSON API, the event streams and the cancel action.
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <sortie/limits.hpp>
#include <sortie/model/error.hpp>
#include <sortie/session/json_text.hpp>
#include <sortie/ui/dashboard.hpp>
#include <sortie/xm/session_binding.hpp>
#include <thread>
#include <vector>

#include "api_views.hpp"
#include "connection_pool.hpp"
#include "event_streams.hpp"
#include "live_stream.hpp"
#include "request_guard.hpp"
#include "request_input.hpp"
#include "status_refresher.hpp"
#include "web_assets.hpp"
#include "worker_context.hpp"

namespace sortie::ui {
namespace {

constexpr auto kRefreshPeriod = std::chrono::milliseconds(250);
// Entries of a list page (`limit`), by default and at most (docs/ui.md).
constexpr int64_t kDefaultPageSize = 200;
constexpr int64_t kMaxPageSize = 1000;

// The pages, all served by index.html; its script reads the path (shareable URLs).
constexpr const char* kPagePaths = R"(/|/experiments/[0-9]{1,18}|/app|/timeline)";

int http_status_of(const Error& error) {
  switch (error.code()) {
    case Code::kInvalidArgument:
      return 400;
    case Code::kPermissionDenied:
      return 403;
    case Code::kNotFound:
      return 404;
    case Code::kResourceExhausted:
      return 429;
    default:
      return 502;  // a scheduler or its plugin failed
  }
}

void answer_json(httplib::Response& response, const std::string& json, int status = 200) {
  response.status = status;
  response.set_header("Cache-Control", "no-store");
  response.set_content(json, "application/json");
}

void answer_error(httplib::Response& response, int status, const std::string& message) {
  session::JsonText out;
  out.begin_object().key("error").string(message).end_object();
  answer_json(response, out.str(), status);
}

std::string parameter(const httplib::Request& request, const char* name) {
  return request.has_param(name) ? request.get_param_value(name) : "";
}

// The `limit` and `after` of a list request; `after` is checked by the list it pages.
Page page_of(const httplib::Request& request) {
  const std::string limit = parameter(request, "limit");
  return {limit.empty() ? kDefaultPageSize : bounded_integer("limit", limit, 1, kMaxPageSize),
          parameter(request, "after")};
}

void answer_asset(httplib::Response& response, const std::string& name) {
  const WebAsset* asset = find_web_asset(name);
  if (asset == nullptr) {
    answer_error(response, 404, "no such file");
    return;
  }
  response.set_content(asset->bytes.data(), asset->bytes.size(), asset->content_type);
}

void start_event_stream(httplib::Response& response,
                        std::function<void(httplib::DataSink&)> stream) {
  response.set_header("Cache-Control", "no-store");
  response.set_header("X-Accel-Buffering", "no");
  response.set_chunked_content_provider(
      "text/event-stream", [stream = std::move(stream)](size_t, httplib::DataSink& sink) {
        try {
          stream(sink);
        } catch (const std::exception& e) {
          // The stream had started (200 sent): the error becomes its last event.
          session::JsonText out;
          out.begin_object().key("error").string(e.what()).end_object();
          const std::string text = "event: failed\ndata: " + out.str() + "\n\n";
          sink.write(text.data(), text.size());
        }
        sink.done();
        return true;
      });
}

class Dashboard {
 public:
  Dashboard(const session::SessionOptions& session_options, const DashboardOptions& options)
      : session_options_(session_options), options_(options) {}

  void route(httplib::Server& server) {
    server.Get(kPagePaths, [](const httplib::Request&, httplib::Response& response) {
      answer_asset(response, "index.html");
    });
    // No icon: an empty answer rather than a 404 in every browser's console.
    server.Get("/favicon.ico",
               [](const httplib::Request&, httplib::Response& response) { response.status = 204; });
    server.Get(R"(/assets/([a-z.]{1,40}\.(js|css)))",
               [](const httplib::Request& request, httplib::Response& response) {
                 answer_asset(response, request.matches[1]);
               });
    // Any other path: the page, which shows its "not found" view, with status 404; an unknown
    // API path a JSON error. (cpp-httplib calls this for every error status: only the unrouted
    // requests come without a body.)
    server.set_error_handler(httplib::Server::HandlerWithResponse(
        [](const httplib::Request& request, httplib::Response& response) {
          if (response.status != 404 || !response.body.empty()) {
            return httplib::Server::HandlerResponse::Unhandled;
          }
          if (request.path.rfind("/api/", 0) == 0) {
            answer_error(response, 404, "no such endpoint (docs/ui.md lists them)");
          } else {
            answer_asset(response, "index.html");
            response.status = 404;
          }
          return httplib::Server::HandlerResponse::Handled;
        }));
    server.Get("/api/config", [this](const httplib::Request&, httplib::Response& response) {
      session::JsonText out;
      out.begin_object().key("schema").string("sortie.ui.config/1");
      out.key("allow_writes").boolean(options_.allow_writes).end_object();
      answer_json(response, out.str());
    });
    server.Get("/api/experiments", api([](WorkerContext& context, const httplib::Request&) {
                 return experiments_json(context);
               }));
    server.Get(R"(/api/experiments/([0-9]{1,18}))",
               api([](WorkerContext& context, const httplib::Request& request) {
                 const int64_t id = bounded_integer("experiment id", request.matches[1], 1,
                                                    std::numeric_limits<int64_t>::max());
                 Page page = page_of(request);
                 if (!page.after.empty()) {
                   page.after = std::to_string(bounded_integer(
                       "after", page.after, 0, std::numeric_limits<int32_t>::max()));
                 }
                 auto json = experiment_json(context, id, page);
                 if (!json) throw Error::not_found("no experiment " + std::to_string(id));
                 return *json;
               }));
    server.Get("/api/apps", api([](WorkerContext& context, const httplib::Request& request) {
                 Page page = page_of(request);
                 if (!page.after.empty())
                   page.after = recorded_handle(context.session(), page.after);
                 return apps_json(context, page);
               }));
    server.Get("/api/app", api([](WorkerContext& context, const httplib::Request& request) {
                 return app_json(context,
                                 recorded_handle(context.session(), parameter(request, "handle")));
               }));
    server.Get("/api/metrics", api([](WorkerContext& context, const httplib::Request& request) {
                 const std::string key = parameter(request, "key");
                 if (key.size() > 256) throw Error::invalid_argument("key: too long");
                 return metrics_json(
                     context, recorded_handle(context.session(), parameter(request, "handle")), key,
                     curve_window_of(request));
               }));
    // The curves of many apps at once, in one request (a sweep's, for a script; the page gets
    // them through its stream).
    server.Get("/api/curves", api([](WorkerContext& context, const httplib::Request& request) {
                 const std::string key = parameter(request, "key");
                 if (key.size() > 256) throw Error::invalid_argument("key: too long");
                 const size_t apps = request.get_param_value_count("handle");
                 if (apps == 0 || apps > kMaxLiveMetricApps) {
                   throw Error::invalid_argument("handle: give 1 to " +
                                                 std::to_string(kMaxLiveMetricApps) + " apps");
                 }
                 const CurveWindow window = curve_window_of(request);
                 session::JsonText out;
                 out.begin_object().key("schema").string("sortie.ui.curves/1");
                 out.key("apps").begin_array();
                 for (size_t i = 0; i < apps; ++i) {
                   const std::string handle =
                       recorded_handle(context.session(), request.get_param_value("handle", i));
                   out.raw(metrics_json(context, handle, key, window));
                 }
                 return out.end_array().end_object().str();
               }));
    server.Get("/api/events", [this](const httplib::Request& request, httplib::Response& response) {
      guarded(response, [&](WorkerContext&) {
        const int64_t after =
            resume_after(request.get_header_value("Last-Event-ID"), parameter(request, "after"));
        admit_stream(request);
        start_event_stream(response, [this, after](httplib::DataSink& sink) {
          stream_store_events(context(), after, sink, stopping_);
        });
      });
    });
    server.Get("/api/live", [this](const httplib::Request& request, httplib::Response& response) {
      guarded(response, [&](WorkerContext& handler_context) {
        LiveRequest live =
            live_request_of(handler_context.session(), request, kDefaultPageSize, kMaxPageSize);
        admit_stream(request, 1 + live.panes.size());
        start_event_stream(response, [this, live = std::move(live)](httplib::DataSink& sink) {
          stream_live(session_options_, live, sink, stopping_);
        });
      });
    });
    server.Get("/api/logs", [this](const httplib::Request& request, httplib::Response& response) {
      guarded(response, [&](WorkerContext& handler_context) {
        LogStreamRequest log = log_request_of(handler_context.session(), request.params,
                                              request.get_header_value("Last-Event-ID"));
        admit_stream(request);
        start_event_stream(response, [this, log = std::move(log)](httplib::DataSink& sink) {
          stream_log_lines(context(), log, sink, stopping_);
        });
      });
    });
    server.Post(
        "/api/cancel", [this](const httplib::Request& request, httplib::Response& response) {
          guarded(response, [&](WorkerContext& context) { cancel(context, request, response); });
        });
    server.Post("/api/rerun", [this](const httplib::Request& request, httplib::Response& response) {
      guarded(response, [&](WorkerContext& context) { rerun(context, request, response); });
    });
    server.Post(
        "/api/annotations", [this](const httplib::Request& request, httplib::Response& response) {
          guarded(response, [&](WorkerContext& context) { annotate(context, request, response); });
        });
  }

  void stop() { stopping_ = true; }

  // The server's task queue, made when it starts listening (cpp-httplib owns it).
  httplib::TaskQueue* new_connection_pool() {
    pool_ = new ConnectionPool(static_cast<size_t>(options_.threads), stream_limits_);
    return pool_;
  }

 private:
  WorkerContext& context() { return WorkerContext::of_this_thread(session_options_); }

  // The request becomes a stream on this thread, outside the request workers; past a limit of
  // streams, Error::resource_exhausted (429).
  void admit_stream(const httplib::Request& request, size_t threads = 1) {
    const std::string client = stream_client_of(request.remote_addr);
    switch (pool_->begin_stream(client, threads)) {
      case StreamAdmission::kAdmitted:
        return;
      case StreamAdmission::kTooManyFromClient:
        throw Error::resource_exhausted(limits::exceeded(
            "another event or log stream from " +
                (client == request.remote_addr
                     ? client
                     : client + " (" + request.remote_addr + ", one of its addresses)") +
                " (close a dashboard tab or log pane)",
            limits::kUiStreamsPerClient));
      case StreamAdmission::kTooManyInAll:
        throw Error::resource_exhausted(limits::exceeded(
            "another event or log stream (close dashboard tabs or log panes)", limits::kUiStreams));
    }
  }

  // Runs `answer` with this thread's context; an Error becomes its HTTP status and message.
  void guarded(httplib::Response& response, const std::function<void(WorkerContext&)>& answer) {
    try {
      answer(context());
    } catch (const Error& e) {
      answer_error(response, http_status_of(e), e.what());
    } catch (const std::exception& e) {
      answer_error(response, 500, e.what());
    }
  }

  httplib::Server::Handler api(
      std::function<std::string(WorkerContext&, const httplib::Request&)> view) {
    return [this, view = std::move(view)](const httplib::Request& request,
                                          httplib::Response& response) {
      guarded(response,
              [&](WorkerContext& context) { answer_json(response, view(context, request)); });
    };
  }

  void require_writes(const std::string& what) const {
    if (!options_.allow_writes) {
      throw Error::permission_denied(
          "this dashboard is read-only; start it with `sortie ui "
          "--allow-writes` to " +
          what);
    }
  }

  // POST /api/annotations?id=N: `notes` (when given) replaces the experiment's notes, each `tag`
  // (+TAG or -TAG, in order) edits its tags, as `sortie experiments note|tag` do.
  void annotate(WorkerContext& context, const httplib::Request& request,
                httplib::Response& response) {
    require_writes("edit notes and tags");
    const int64_t id =
        bounded_integer("id", parameter(request, "id"), 1, std::numeric_limits<int64_t>::max());
    xm::Experiment experiment = xm::SessionBinding::get(context.session(), id);
    std::vector<std::string> tag_words;
    for (size_t i = 0; i < request.get_param_value_count("tag"); ++i) {
      tag_words.push_back(request.get_param_value("tag", i));
    }
    experiment.annotate(request.has_param("notes")
                            ? std::optional<std::string>(request.get_param_value("notes"))
                            : std::nullopt,
                        tag_words);
    session::JsonText out;
    out.begin_object().key("id").number(id).key("notes").string(experiment.notes());
    out.key("tags").begin_array();
    for (const std::string& tag : experiment.tags()) out.string(tag);
    answer_json(response, out.end_array().end_object().str());
  }

  // POST /api/rerun?id=N&failed=1&cancelled=1&unit=3...: the selected ended work units run
  // again as their next attempt, as `sortie experiments rerun` runs them (docs/experiments.md).
  void rerun(WorkerContext& context, const httplib::Request& request, httplib::Response& response) {
    require_writes("re-run work units");
    const int64_t id =
        bounded_integer("id", parameter(request, "id"), 1, std::numeric_limits<int64_t>::max());
    xm::RerunSelection selection;
    selection.failed = parameter(request, "failed") == "1";
    selection.cancelled = parameter(request, "cancelled") == "1";
    for (size_t i = 0; i < request.get_param_value_count("unit"); ++i) {
      selection.units.push_back(static_cast<int>(bounded_integer(
          "unit", request.get_param_value("unit", i), 1, std::numeric_limits<int>::max())));
    }
    xm::Experiment experiment = xm::SessionBinding::get(context.session(), id);
    session::JsonText out;
    out.begin_object().key("id").number(id).key("work_units").begin_array();
    for (const xm::WorkUnit& unit : experiment.rerun(selection)) {
      out.begin_object().key("id").number(int64_t{unit.id});
      out.key("attempt").number(int64_t{unit.attempt}).end_object();
    }
    answer_json(response, out.end_array().end_object().str(), 202);
  }

  // POST /api/cancel?handle=H cancels one app; ?experiment=ID[&unit=N] every app of the
  // experiment (or of its work unit N) that has not ended, as `sortie cancel` does them.
  void cancel(WorkerContext& context, const httplib::Request& request,
              httplib::Response& response) {
    require_writes("cancel apps");
    session::JsonText out;
    if (!request.has_param("experiment")) {
      const std::string handle = recorded_handle(context.session(), parameter(request, "handle"));
      context.runner().cancel(handle, "sortie ui");
      out.begin_object().key("cancel_requested").string(handle).end_object();
      answer_json(response, out.str(), 202);
      return;
    }
    const std::vector<std::string> handles = active_handles(context, request);
    const auto failures = context.runner().cancel_all(handles, "sortie ui");
    out.begin_object().key("cancel_requested").begin_array();
    for (const std::string& handle : handles) out.string(handle);
    out.end_array().key("failed").begin_array();
    for (const runner::CancelFailure& failure : failures) {
      out.begin_object().key("handle").string(failure.handle);
      out.key("error").string(failure.error.what()).end_object();
    }
    answer_json(response, out.end_array().end_object().str(), 202);
  }

  // The apps not ended of the request's experiment, or of its work unit `unit`.
  static std::vector<std::string> active_handles(WorkerContext& context,
                                                 const httplib::Request& request) {
    const store::AppStore& store = context.session().records();
    const int64_t id = bounded_integer("experiment", parameter(request, "experiment"), 1,
                                       std::numeric_limits<int64_t>::max());
    if (!store.experiment(id)) throw Error::not_found("no experiment " + std::to_string(id));
    const std::string unit_text = parameter(request, "unit");
    const int64_t unit =
        unit_text.empty() ? 0
                          : bounded_integer("unit", unit_text, 1, std::numeric_limits<int>::max());
    std::vector<std::string> handles;
    bool unit_found = unit == 0;
    for (const store::WorkUnitRecord& record : store.work_units(id)) {
      if (unit != 0 && record.work_unit_id != unit) continue;
      unit_found = true;
      for (const store::ExperimentJobRecord& job : record.jobs) {
        const auto app = store.get(job.handle);
        if (app && !model::is_terminal(app->state) &&
            std::find(handles.begin(), handles.end(), job.handle) == handles.end()) {
          handles.push_back(job.handle);
        }
      }
    }
    if (!unit_found) {
      throw Error::not_found("experiment " + std::to_string(id) + " has no work unit " +
                             std::to_string(unit));
    }
    return handles;
  }

  session::SessionOptions session_options_;
  DashboardOptions options_;
  // Read once: a bad SORTIE_LIMIT_UI_STREAMS* fails the start, not a stream.
  StreamLimits stream_limits_{limits::value(limits::kUiStreams),
                              limits::value(limits::kUiStreamsPerClient)};
  ConnectionPool* pool_ = nullptr;
  std::atomic<bool> stopping_{false};
};

// Every request passes `guard` first: one addressed elsewhere, or a write without the token, is
// 403.
void refuse_unguarded(httplib::Server& server, const RequestGuard& guard) {
  server.set_pre_routing_handler(
      [&guard](const httplib::Request& request, httplib::Response& response) {
        const bool write = request.method != "GET" && request.method != "HEAD";
        const std::string refusal = guard.refusal(request.get_header_value("Host"), write,
                                                  request.get_header_value(kTokenHeader));
        if (refusal.empty()) return httplib::Server::HandlerResponse::Unhandled;
        answer_error(response, 403, refusal);
        return httplib::Server::HandlerResponse::Handled;
      });
}

// Ends the process if a stop takes longer than kStopWait: a worker inside a plugin's log read or
// a long match cannot be interrupted, and SIGTERM must still stop the dashboard within 1 s. What a
// worker leaves is safe to abandon: it only reads, and a cancel's store write is a transaction.
class StopDeadline {
 public:
  static constexpr auto kStopWait = std::chrono::milliseconds(500);

  StopDeadline() = default;
  StopDeadline(const StopDeadline&) = delete;
  StopDeadline& operator=(const StopDeadline&) = delete;
  ~StopDeadline() {
    if (!watchdog_.joinable()) return;
    {
      const std::lock_guard lock(mutex_);
      stopped_ = true;
    }
    stopped_changed_.notify_one();
    watchdog_.join();
  }

  void start() {
    watchdog_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      if (stopped_changed_.wait_for(lock, kStopWait, [this] { return stopped_; })) return;
      std::fflush(stdout);
      _exit(0);
    });
  }

 private:
  std::mutex mutex_;
  std::condition_variable stopped_changed_;
  bool stopped_ = false;
  std::thread watchdog_;
};

// The token travels in the fragment, which the browser never sends: the page's script reads it.
std::string url_of(const std::string& host, int port, const std::string& token) {
  return "http://" + host_in_url(host) + ":" + std::to_string(port) + "/#token=" + token;
}

}  // namespace

void serve_dashboard(const session::SessionOptions& session_options,
                     const DashboardOptions& options,
                     const std::function<void(const std::string& url)>& on_listening,
                     const std::function<bool()>& should_stop) {
  StopDeadline deadline;  // first, so that it bounds every destructor below
  Dashboard dashboard(session_options, options);
  httplib::Server server;
  server.new_task_queue = [&dashboard] { return dashboard.new_connection_pool(); };
  // The largest body is an experiment's notes (L-22), form-encoded: at most 3 bytes a byte.
  server.set_payload_max_length(3 * limits::value(limits::kExperimentNotesBytes) + 4096);
  // Dygraphs styles its legend and canvases inline: styles may be, scripts never.
  server.set_default_headers(
      {{"Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'"},
       {"X-Content-Type-Options", "nosniff"},
       {"Referrer-Policy", "no-referrer"}});
  dashboard.route(server);

  const int port = options.port == 0
                       ? server.bind_to_any_port(options.host)
                       : (server.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port < 0) {
    throw Error::unavailable("cannot listen on " + options.host + " port " +
                             std::to_string(options.port) +
                             ": the address is in use or not this machine's; choose another with "
                             "--host/--port");
  }
  const RequestGuard guard(options.host, port);
  refuse_unguarded(server, guard);
  StatusRefresher refresher(session_options, kRefreshPeriod);
  std::atomic<bool> listener_ended{false};
  std::thread listener([&server, &listener_ended] {
    server.listen_after_bind();
    listener_ended = true;
  });
  on_listening(url_of(options.host, port, guard.token()));
  while (!should_stop() && !listener_ended) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  deadline.start();
  dashboard.stop();
  server.stop();
  listener.join();
}

}  // namespace sortie::ui
