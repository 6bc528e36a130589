#include "event_streams.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <sortie/model/secret_env.hpp>
#include <sortie/session/json_text.hpp>
#include <thread>
#include <vector>

#include "api_views.hpp"
#include "event_writer.hpp"

namespace sortie::ui {
namespace {

constexpr auto kStorePollPeriod = std::chrono::milliseconds(100);
constexpr int kEventsPerRead = 500;

}  // namespace

std::string log_line_json(const runner::LogLine& line, const std::vector<std::string>& secrets) {
  std::string text = model::mask_secrets(line.text, secrets);
  if (!text.empty() && text.back() == '\n') text.pop_back();
  session::JsonText out;
  out.begin_object().key("role").string(line.role).key("replica").number(int64_t{line.replica});
  out.key("stream").string(line.stderr_stream ? "stderr" : "stdout");
  out.key("timestamp").number(line.timestamp_ns).key("text").string(text);
  return out.end_object().str();
}

void stream_store_events(WorkerContext& context, int64_t after_id, httplib::DataSink& sink,
                         const std::atomic<bool>& stopping) {
  EventWriter writer(sink);
  const store::AppStore& store = context.session().records();
  std::map<std::string, std::vector<std::string>> secrets;  // of each app, read once
  while (!stopping) {
    const auto events = store.events_after(after_id, kEventsPerRead);
    for (const store::AppEvent& event : events) {
      auto app = secrets.find(event.handle);
      if (app == secrets.end()) {
        app = secrets.emplace(event.handle, recorded_secrets(store, event.handle)).first;
      }
      if (!writer.send("app", event.id, model::mask_secrets(event_json(event), app->second))) {
        return;
      }
      after_id = event.id;
    }
    if (static_cast<int>(events.size()) == kEventsPerRead) continue;
    if (!writer.keep_alive()) return;
    std::this_thread::sleep_for(kStorePollPeriod);
  }
}

LogReadEnd read_log_lines(WorkerContext& context, const LogStreamRequest& request,
                          const std::function<bool(int64_t, const std::string&)>& on_line,
                          const std::function<bool()>& keep_reading) {
  const auto secrets = recorded_secrets(context.session().records(), request.handle);
  int64_t number = 0;
  bool first_batch = true;
  const bool ended = context.runner().log_lines(
      request.handle, request.options, [&](const std::vector<runner::LogLine>& batch) {
        // The first batch holds what was written before the viewer came: `tail` keeps its end.
        size_t begin = 0;
        if (first_batch && request.tail > 0 && batch.size() > static_cast<size_t>(request.tail)) {
          begin = batch.size() - static_cast<size_t>(request.tail);
          number += static_cast<int64_t>(begin);
        }
        first_batch = first_batch && batch.empty();
        for (size_t i = begin; i < batch.size(); ++i) {
          if (++number <= request.already_sent) continue;
          if (!on_line(number, log_line_json(batch[i], secrets))) return false;
        }
        return keep_reading();
      });
  return {ended, number};
}

void stream_log_lines(WorkerContext& context, const LogStreamRequest& request,
                      httplib::DataSink& sink, const std::atomic<bool>& stopping) {
  EventWriter writer(sink);
  const LogReadEnd end = read_log_lines(
      context, request,
      [&writer](int64_t number, const std::string& line) { return writer.send("", number, line); },
      [&] { return !stopping && writer.keep_alive(); });
  if (end.ended) writer.send("end", end.last_number, "{}");
}

}  // namespace sortie::ui
