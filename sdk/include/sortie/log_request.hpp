// What log_open() is given, sortie.log_request/1 (docs/payloads.md P-10), and its reader. Part
// of Sortie::plugin_support. The host filters lines by regex itself; a scheduler selects them by
// role, replica, stream and time.
#ifndef SORTIE_LOG_REQUEST_HPP
#define SORTIE_LOG_REQUEST_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sortie {

// kMetrics: the replica's $SORTIE_METRICS_FILE, served by a scheduler that sets it; never part of
// kCombined.
enum class LogStreams { kCombined, kStdout, kStderr, kMetrics };

struct LogRequest {
  std::string role;                // "" = every role
  std::optional<int64_t> replica;  // absent = every replica of the selected roles; >= 0
  LogStreams streams = LogStreams::kCombined;
  std::optional<int64_t> since_ns;  // lines timestamped before it are skipped
  std::optional<int64_t> until_ns;  // lines timestamped after it are skipped
  std::optional<int64_t> tail;      // only the last N (>= 0) lines of each replica
  bool follow = false;              // keep reading until the app is terminal

  // Whether the request selects the lines of this replica.
  bool selects(std::string_view role_name, int64_t replica_id) const;
  // Whether a line with this timestamp falls inside [since, until].
  bool in_window(int64_t timestamp_ns) const;
  // Whether a line of this stream (SORTIE_STREAM_STDOUT, _STDERR or _METRICS) is wanted.
  bool wants_stream(int32_t stream) const;
};

// Reads sortie.log_request/1 JSON text; "" asks for everything. Throws sortie::Error
// INVALID_ARGUMENT naming the member ("replica: must be an integer >= 0").
LogRequest read_log_request(std::string_view json);

// The sortie.log_request/1 JSON text; absent members are left out.
std::string write_log_request(const LogRequest& request);

// "combined", "stdout", "stderr" or "metrics".
std::string_view log_streams_name(LogStreams streams) noexcept;

}  // namespace sortie

#endif  // SORTIE_LOG_REQUEST_HPP
