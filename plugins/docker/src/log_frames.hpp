// Decodes the body of GET /containers/{id}/logs?timestamps=1 for a container without a TTY: the
// Engine multiplexes stdout and stderr in frames of an 8-byte header [stream, 0, 0, 0, size as
// big-endian uint32] followed by `size` bytes, each frame one log entry "RFC3339NANO message".
// Entries longer than the log driver's buffer arrive in pieces without '\n'; the decoder joins
// them per stream and hands over whole lines.
#ifndef SORTIE_DOCKER_LOG_FRAMES_HPP
#define SORTIE_DOCKER_LOG_FRAMES_HPP

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace sortie::docker {

// stream: SORTIE_STREAM_STDOUT or SORTIE_STREAM_STDERR; line keeps its '\n' when it had one.
using LineHandler =
    std::function<void(int32_t stream, int64_t timestamp_ns, std::string_view line)>;

class LogFrameDecoder {
 public:
  // Consumes bytes (any split); calls on_line for every line completed by a whole frame.
  void feed(std::string_view bytes, const LineHandler& on_line);
  // The stream ended for good: hands over the unfinished lines held back.
  void finish(const LineHandler& on_line);
  // A transfer was cut: forgets the bytes of an unfinished frame (the next request, starting
  // after last_entry_ns(), sends that entry again) but keeps unfinished lines.
  void drop_partial_frame() { frame_.clear(); }
  // Timestamp of the last whole entry consumed; 0 before the first.
  int64_t last_entry_ns() const { return last_entry_ns_; }

 private:
  void entry(int32_t stream, std::string_view payload, const LineHandler& on_line);

  std::string frame_;  // bytes of the frame being received
  struct Pending {
    std::string text;
    int64_t timestamp_ns = 0;
  };
  Pending pending_[2];  // unfinished line of stdout, stderr
  int64_t last_entry_ns_ = 0;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_LOG_FRAMES_HPP
