#include "replica_output.hpp"

#include <sortie/plugin_abi.h>

namespace sortie::local {

ReplicaOutput::ReplicaOutput(const std::string& dir)
    : stdout_(dir + "/stdout.log"),
      stderr_(dir + "/stderr.log"),
      combined_(dir + "/combined.log") {}

void ReplicaOutput::write(int32_t stream, std::string_view bytes, int64_t timestamp_ns) {
  (stream == SORTIE_STREAM_STDOUT ? stdout_ : stderr_).append(bytes, stream, timestamp_ns);
  std::string& unfinished = unfinished_line_[stream == SORTIE_STREAM_STDOUT ? 0 : 1];
  const size_t last_newline = bytes.rfind('\n');
  if (last_newline == std::string_view::npos) {
    unfinished.append(bytes);
    return;
  }
  if (unfinished.empty()) {
    combined_.append(bytes.substr(0, last_newline + 1), stream, timestamp_ns);
  } else {
    unfinished.append(bytes.substr(0, last_newline + 1));
    combined_.append(unfinished, stream, timestamp_ns);
    unfinished.clear();
  }
  unfinished.append(bytes.substr(last_newline + 1));
}

void ReplicaOutput::end_stream(int32_t stream, int64_t timestamp_ns) {
  std::string& unfinished = unfinished_line_[stream == SORTIE_STREAM_STDOUT ? 0 : 1];
  combined_.append(unfinished, stream, timestamp_ns);
  unfinished.clear();
  // The other stream, or a restarted replica, continues on a new line.
  combined_.end_line();
  (stream == SORTIE_STREAM_STDOUT ? stdout_ : stderr_).end_line();
}

void ReplicaOutput::close_files() {
  stdout_.close_files();
  stderr_.close_files();
  combined_.close_files();
}

}  // namespace sortie::local
