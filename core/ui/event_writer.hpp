// File: core/ui/event_writer.hpp
//
// Writes server-sent events (text/event-stream) to a cpp-httplib sink, with a keep-alive comment
// on an idle stream so that a viewer that left is noticed by the failed write.
#ifndef SORTIE_UI_EVENT_WRITER_HPP
#define SORTIE_UI_EVENT_WRITER_HPP

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace sortie::ui {

class EventWriter {
 public:
  static constexpr auto kKeepAlivePeriod = std::chrono::seconds(2);

  explicit EventWriter(httplib::DataSink& sink) : sink_(sink) {}

  // `id` sets the stream's Last-Event-ID; an event without one leaves it as it was.
  bool send(const std::string& event, std::optional<int64_t> id, const std::string& data) {
    std::string text;
    if (id) text = "id: " + std::to_string(*id) + "\n";
    if (!event.empty()) text += "event: " + event + "\n";
    text += "data: " + data + "\n\n";
    return write(text);
  }
  // Events already formatted (event_text), written at once.
  bool write(const std::string& text) {
    last_write_ = std::chrono::steady_clock::now();
    return sink_.write(text.data(), text.size());
  }
  // A comment when nothing was sent for a while.
  bool keep_alive() {
    return std::chrono::steady_clock::now() - last_write_ < kKeepAlivePeriod ||
           write(": keep-alive\n\n");
  }

 private:
  httplib::DataSink& sink_;
  std::chrono::steady_clock::time_point last_write_ = std::chrono::steady_clock::now();
};

}  // namespace sortie::ui

#endif  // SORTIE_UI_EVENT_WRITER_HPP
