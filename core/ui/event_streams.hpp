// File: core/ui/event_streams.hpp
//
// The dashboard's server-sent event streams (text/event-stream). Each holds its server thread
// while open and ends when the viewer leaves (a failed write), when the server stops, or, for a
// log that is not followed, at its end.
#ifndef SORTIE_UI_EVENT_STREAMS_HPP
#define SORTIE_UI_EVENT_STREAMS_HPP

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <sortie/runner.hpp>
#include <string>
#include <vector>

#include "worker_context.hpp"

namespace sortie::ui {

// The store's events with ids above `after_id`, each as `id: ID` + `event: app` + its JSON; the
// id is the store's, so a reconnect with Last-Event-ID resumes without duplicates or gaps. Each
// event masks its app's secrets (secrets_of in api_views.hpp).
void stream_store_events(WorkerContext& context, int64_t after_id, httplib::DataSink& sink,
                         const std::atomic<bool>& stopping);

struct LogStreamRequest {
  std::string handle;
  runner::LogOptions options;
  int64_t already_sent = 0;  // Last-Event-ID: lines numbered up to it are skipped
  int64_t tail = 0;          // > 0: of the lines already written, only the last `tail`
};

// One log line as the streams send it ({"role","replica","stream","timestamp","text"}), its text
// with `secrets` masked.
std::string log_line_json(const runner::LogLine& line, const std::vector<std::string>& secrets);

struct LogReadEnd {
  bool ended = false;       // the log ended (else a callback stopped the read)
  int64_t last_number = 0;  // the number of the last line read
};

// Reads the app's log lines as `request` asks, handing each to `on_line` with its number in this
// log and its JSON (log_line_json); `keep_reading` is asked after each batch (at least every half
// second). Either returning false stops the read.
LogReadEnd read_log_lines(WorkerContext& context, const LogStreamRequest& request,
                          const std::function<bool(int64_t, const std::string&)>& on_line,
                          const std::function<bool()>& keep_reading);

// The app's log lines, each as `id: N` (its number in this log) + its JSON with the app's secrets
// masked (an app that prints its environment); `event: end` when the log ended.
void stream_log_lines(WorkerContext& context, const LogStreamRequest& request,
                      httplib::DataSink& sink, const std::atomic<bool>& stopping);

}  // namespace sortie::ui

#endif  // SORTIE_UI_EVENT_STREAMS_HPP
