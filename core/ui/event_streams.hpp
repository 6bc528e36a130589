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
#include <sortie/runner.hpp>
#include <string>

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

// The app's log lines, each as `id: N` (its number in this log) + its JSON with the app's secrets
// masked (an app that prints its environment); `event: end` when the log ended.
void stream_log_lines(WorkerContext& context, const LogStreamRequest& request,
                      httplib::DataSink& sink, const std::atomic<bool>& stopping);

}  // namespace sortie::ui

#endif  // SORTIE_UI_EVENT_STREAMS_HPP
