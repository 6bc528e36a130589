// Writes one replica's output: each stream verbatim to its own file, and whole lines of both
// streams to combined.log. A stream's unfinished line is held back until its '\n' (or the end of
// the stream), so lines of stdout and stderr never interleave mid-line in combined.log.
#ifndef SORTIE_LOCAL_REPLICA_OUTPUT_HPP
#define SORTIE_LOCAL_REPLICA_OUTPUT_HPP

#include <cstdint>
#include <string>
#include <string_view>

#include "log_index.hpp"

namespace sortie::local {

class ReplicaOutput {
 public:
  // Writes <dir>/{stdout,stderr,combined}.log and their indexes, each created on its first
  // write and appended to when it exists.
  explicit ReplicaOutput(const std::string& dir);

  // `stream` is SORTIE_STREAM_STDOUT or SORTIE_STREAM_STDERR.
  void write(int32_t stream, std::string_view bytes, int64_t timestamp_ns);
  // The stream ended: its held-back final line (without '\n') goes to combined.log.
  void end_stream(int32_t stream, int64_t timestamp_ns);
  // Closes every file until the next write.
  void close_files();

 private:
  IndexedLogWriter stdout_;
  IndexedLogWriter stderr_;
  IndexedLogWriter combined_;
  std::string unfinished_line_[2];
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_REPLICA_OUTPUT_HPP
