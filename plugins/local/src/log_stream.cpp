#include "log_stream.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <sortie/limits.hpp>
#include <sortie/log_request.hpp>

#include "file_util.hpp"
#include "job_files.hpp"
#include "json_fields.hpp"
#include "launch_request.hpp"
#include "process_info.hpp"

namespace sortie::local {
namespace {

constexpr size_t kReadChunk = 256 << 10;
// Bytes handed over per next() call, so that a huge log is handed over in slices.
constexpr size_t kBudgetPerCall = 8 << 20;

std::string role_names(const LaunchRequest& request) {
  std::string names;
  for (const RoleLaunch& role : request.roles) names += (names.empty() ? "" : ", ") + role.name;
  return names;
}

}  // namespace

LocalLogStream::LocalLogStream(const AppRegistry& registry, std::string app_dir,
                               std::string_view request_text)
    : registry_(registry),
      app_dir_(std::move(app_dir)),
      max_line_(std::max<size_t>(2, limits::value(limits::kLogLineBytes))) {
  const LogRequest request = read_log_request(request_text);
  if (request.tail) {
    throw Error::unimplemented(
        "local: 'tail' in a log request is not supported; read the whole log");
  }
  const std::string& role = request.role;
  const bool all_replicas = !request.replica;
  const int64_t replica = request.replica.value_or(0);
  const std::string streams(log_streams_name(request.streams));
  since_ = request.since_ns;
  until_ = request.until_ns;
  follow_ = request.follow;
  int32_t fixed_stream = 0;
  if (request.streams == LogStreams::kStdout) fixed_stream = SORTIE_STREAM_STDOUT;
  if (request.streams == LogStreams::kStderr) fixed_stream = SORTIE_STREAM_STDERR;
  if (request.streams == LogStreams::kMetrics) fixed_stream = SORTIE_STREAM_METRICS;

  const std::string request_path = app_dir_ + "/request.json";
  const LaunchRequest launch = read_launch_request(
      plugins_common::parse_object(read_file(request_path), request_path), request_path);
  bool role_found = role.empty();
  for (const RoleLaunch& role_launch : launch.roles) {
    if (!role.empty() && role_launch.name != role) continue;
    role_found = true;
    if (!all_replicas &&
        (replica < 0 || replica >= static_cast<int64_t>(role_launch.replicas.size()))) {
      throw Error::not_found("app '" + launch.app_id + "' role '" + role_launch.name +
                             "' has no replica " + std::to_string(replica) + " (it has " +
                             std::to_string(role_launch.replicas.size()) + ")");
    }
    for (const ReplicaLaunch& replica_launch : role_launch.replicas) {
      if (!all_replicas && replica_launch.id != replica) continue;
      const std::string dir = replica_dir(app_dir_, role_launch.name, replica_launch.id);
      const std::string path =
          request.streams == LogStreams::kMetrics
              ? metrics_file_path(app_dir_, role_launch.name, replica_launch.id)
              : dir + "/" + streams + ".log";
      Cursor cursor;
      cursor.role = role_launch.name;
      cursor.replica_id = replica_launch.id;
      cursor.fixed_stream = fixed_stream;
      cursor.path = path;
      open_if_created(cursor);
      cursors_.push_back(std::move(cursor));
      cursors_.back().index = std::make_unique<LogIndexReader>(path);
    }
  }
  if (!role_found) {
    throw Error::not_found("app '" + launch.app_id + "' has no role '" + role +
                           "' (roles: " + role_names(launch) + ")");
  }
  if (follow_) watch_ = std::make_unique<AppWatch>(app_dir_);
}

LocalLogStream::~LocalLogStream() {
  for (Cursor& cursor : cursors_) {
    if (cursor.fd >= 0) ::close(cursor.fd);
  }
}

bool LocalLogStream::app_ended() {
  const LocalApp app = registry_.load_status_from_dir(app_dir_);
  if (watch_ != nullptr) watch_->watch_supervisor(app.supervisor);
  return is_terminal(app.status.state);
}

bool LocalLogStream::open_if_created(Cursor& cursor) {
  if (cursor.fd >= 0) return true;
  // A supervisor that is still starting has not created the files yet: nothing to read so far.
  cursor.fd = plugins_common::open_job_file(cursor.path);
  return cursor.fd >= 0;
}

bool LocalLogStream::read_more(Cursor& cursor) {
  if (!open_if_created(cursor)) return false;
  // Drop what was handed over once it is most of the buffer, so memory stays near one chunk.
  if (cursor.consumed > 0 && cursor.consumed * 2 >= cursor.buffer.size()) {
    cursor.buffer.erase(0, cursor.consumed);
    cursor.buffer_offset += cursor.consumed;
    cursor.consumed = 0;
  }
  for (;;) {
    const size_t old_size = cursor.buffer.size();
    cursor.buffer.resize(old_size + kReadChunk);
    const ssize_t n = ::read(cursor.fd, cursor.buffer.data() + old_size, kReadChunk);
    cursor.buffer.resize(old_size + (n > 0 ? static_cast<size_t>(n) : 0));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("cannot read the log of " + cursor.role);
    // The index is read after the data, so it covers every byte in the buffer.
    if (n > 0) cursor.index->refresh();
    return n > 0;
  }
}

bool LocalLogStream::parse_line(Cursor& cursor, bool at_end) {
  for (;;) {
    const size_t start = cursor.consumed;
    if (start >= cursor.buffer.size()) return false;
    const uint64_t line_offset = cursor.buffer_offset + start;
    size_t end = cursor.buffer.find('\n', start);
    // A line the writer ended without '\n' (a stream's last line) ends at the next line start.
    const uint64_t next_start = cursor.index->next_line_start_after(line_offset);
    if (next_start - cursor.buffer_offset <= cursor.buffer.size() &&
        (end == std::string::npos || end >= next_start - cursor.buffer_offset)) {
      end = next_start - cursor.buffer_offset - 1;
    }
    if (cursor.skipping) {  // the rest of a line cut at L-26, dropped as it is read
      cursor.consumed = end == std::string::npos ? cursor.buffer.size() : end + 1;
      cursor.skipping = end == std::string::npos;
      continue;
    }
    const bool too_long =
        (end == std::string::npos ? cursor.buffer.size() : end + 1) - start > max_line_;
    if (end == std::string::npos && !too_long) {
      if (!at_end) return false;
      end = cursor.buffer.size() - 1;
    }
    const LogIndexEntry* entry = cursor.index->entry_for(line_offset);
    LogLine& line = cursor.line;
    line.role = cursor.role;
    line.replica_id = cursor.replica_id;
    line.timestamp_ns = entry != nullptr ? entry->timestamp_ns : 0;
    line.stream = cursor.fixed_stream != 0 ? cursor.fixed_stream
                  : entry != nullptr       ? entry->stream
                                           : SORTIE_STREAM_STDOUT;
    if (too_long) {
      // Its first L-26 bytes, ended as a whole line; the rest is skipped, however long it grows.
      cursor.cut.assign(cursor.buffer, start, max_line_ - 1).push_back('\n');
      line.data = cursor.cut;
      cursor.consumed = end == std::string::npos ? cursor.buffer.size() : end + 1;
      cursor.skipping = end == std::string::npos;
      return true;
    }
    line.data = std::string_view(cursor.buffer).substr(start, end + 1 - start);
    cursor.consumed = end + 1;
    return true;
  }
}

bool LocalLogStream::ensure_line(Cursor& cursor, bool writer_gone) {
  if (cursor.ready) return true;
  while (!cursor.done) {
    if (!parse_line(cursor, false)) {
      if (read_more(cursor)) continue;
      // End of the file as it is now.
      if (follow_ && !writer_gone) {
        if (until_.has_value() && now_ns() > *until_) cursor.done = true;
        return false;
      }
      // A final line without '\n' is whole only once its writer is gone.
      const bool tail = cursor.consumed < cursor.buffer.size() && (follow_ || app_ended());
      if (!tail || !parse_line(cursor, true)) {
        cursor.done = true;
        return false;
      }
    }
    if (until_.has_value() && cursor.line.timestamp_ns > *until_) {
      cursor.done = true;  // timestamps only grow within a file
      return false;
    }
    if (since_.has_value() && cursor.line.timestamp_ns < *since_) continue;
    cursor.ready = true;
    return true;
  }
  return false;
}

bool LocalLogStream::next(int64_t timeout_ms, const LogSink& sink) {
  const size_t emitted_before = emitted_;
  bool waited = false;
  for (;;) {
    // Checked before reading: everything written before the app ended is then read below.
    const bool ended = follow_ && app_ended();
    size_t budget = kBudgetPerCall;
    bool any_open = false;
    while (budget > 0) {
      Cursor* earliest = nullptr;
      any_open = false;
      for (Cursor& cursor : cursors_) {
        if (cursor.done) continue;
        if (ensure_line(cursor, ended) &&
            (earliest == nullptr || cursor.line.timestamp_ns < earliest->line.timestamp_ns)) {
          earliest = &cursor;
        }
        any_open = any_open || !cursor.done;
      }
      if (earliest == nullptr) break;
      sink.emit(earliest->line);
      ++emitted_;
      earliest->ready = false;
      budget -= std::min(budget, earliest->line.data.size());
    }
    if (!any_open) return false;
    if (emitted_ > emitted_before || waited || !follow_) return true;
    waited = true;
    if (watch_->wait(timeout_ms) != AppWatch::Wake::kChanged) return true;
  }
}

}  // namespace sortie::local
