#include "log_frames.hpp"

#include <sortie/plugin_abi.h>

#include "app_status.hpp"

namespace sortie::docker {

void LogFrameDecoder::feed(std::string_view bytes, const LineHandler& on_line) {
  frame_.append(bytes);
  size_t pos = 0;
  while (frame_.size() - pos >= 8) {
    const auto* header = reinterpret_cast<const unsigned char*>(frame_.data() + pos);
    const size_t size = (size_t{header[4]} << 24) | (size_t{header[5]} << 16) |
                        (size_t{header[6]} << 8) | size_t{header[7]};
    if (frame_.size() - pos - 8 < size) break;
    const int32_t stream = header[0] == 2 ? SORTIE_STREAM_STDERR : SORTIE_STREAM_STDOUT;
    entry(stream, std::string_view(frame_).substr(pos + 8, size), on_line);
    pos += 8 + size;
  }
  frame_.erase(0, pos);
}

void LogFrameDecoder::entry(int32_t stream, std::string_view payload, const LineHandler& on_line) {
  int64_t timestamp = 0;
  const size_t space = payload.find(' ');
  if (space != std::string_view::npos) {
    if (const auto parsed = parse_docker_time(payload.substr(0, space))) {
      timestamp = *parsed;
      payload.remove_prefix(space + 1);
    }
  }
  if (timestamp > last_entry_ns_) last_entry_ns_ = timestamp;
  Pending& pending = pending_[stream == SORTIE_STREAM_STDERR ? 1 : 0];
  while (!payload.empty()) {
    const size_t newline = payload.find('\n');
    if (newline == std::string_view::npos) {
      if (pending.text.empty()) pending.timestamp_ns = timestamp;
      pending.text.append(payload);
      return;
    }
    if (pending.text.empty()) {
      on_line(stream, timestamp, payload.substr(0, newline + 1));
    } else {
      pending.text.append(payload.substr(0, newline + 1));
      on_line(stream, pending.timestamp_ns, pending.text);
      pending.text.clear();
    }
    payload.remove_prefix(newline + 1);
  }
}

void LogFrameDecoder::finish(const LineHandler& on_line) {
  for (int index = 0; index < 2; ++index) {
    Pending& pending = pending_[index];
    if (pending.text.empty()) continue;
    on_line(index == 1 ? SORTIE_STREAM_STDERR : SORTIE_STREAM_STDOUT, pending.timestamp_ns,
            pending.text);
    pending.text.clear();
  }
  frame_.clear();
}

}  // namespace sortie::docker
