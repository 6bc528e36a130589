#include "log_stream.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "file_util.hpp"
#include "json_util.hpp"
#include "launch_request.hpp"
#include "process_info.hpp"

namespace sortie::local {
namespace {

constexpr size_t kReadChunk = 1 << 20;
// Bytes read per next() call, so that a huge log is handed over in slices; a single longer line
// is still read whole.
constexpr size_t kBudgetPerCall = 8 << 20;

std::string role_names(const LaunchRequest& request) {
  std::string names;
  for (const RoleLaunch& role : request.roles) names += (names.empty() ? "" : ", ") + role.name;
  return names;
}

}  // namespace

LocalLogStream::LocalLogStream(const AppRegistry& registry, std::string app_dir,
                               std::string_view request_text)
    : registry_(registry), app_dir_(std::move(app_dir)) {
  const std::string what = "sortie.log_request/1";
  const rapidjson::Document request = parse_json(request_text, what);
  const std::string role = string_member(request, "role", what);
  const bool all_replicas = find_member(request, "replica") == nullptr;
  const int64_t replica = int_member(request, "replica", what, 0);
  const std::string streams = string_member(request, "streams", what, "combined");
  if (find_member(request, "since") != nullptr) since_ = int_member(request, "since", what, 0);
  if (find_member(request, "until") != nullptr) until_ = int_member(request, "until", what, 0);
  follow_ = bool_member(request, "follow", what, false);
  int32_t fixed_stream = 0;
  if (streams == "stdout") {
    fixed_stream = SORTIE_STREAM_STDOUT;
  } else if (streams == "stderr") {
    fixed_stream = SORTIE_STREAM_STDERR;
  } else if (streams != "combined") {
    throw Error(Code::kInvalidArgument,
                what + ": streams '" + streams + "' is not one of stdout, stderr, combined");
  }

  const std::string request_path = app_dir_ + "/request.json";
  const LaunchRequest launch =
      read_launch_request(parse_json(read_file(request_path), request_path), request_path);
  bool role_found = role.empty();
  for (const RoleLaunch& role_launch : launch.roles) {
    if (!role.empty() && role_launch.name != role) continue;
    role_found = true;
    if (!all_replicas &&
        (replica < 0 || replica >= static_cast<int64_t>(role_launch.replicas.size()))) {
      throw Error(Code::kNotFound, "app '" + launch.app_id + "' role '" + role_launch.name +
                                       "' has no replica " + std::to_string(replica) + " (it has " +
                                       std::to_string(role_launch.replicas.size()) + ")");
    }
    for (const ReplicaLaunch& replica_launch : role_launch.replicas) {
      if (!all_replicas && replica_launch.id != replica) continue;
      const std::string dir = replica_dir(app_dir_, role_launch.name, replica_launch.id);
      const std::string path = dir + "/" + (streams == "combined" ? "combined" : streams) + ".log";
      Cursor cursor;
      cursor.role = role_launch.name;
      cursor.replica_id = replica_launch.id;
      cursor.fixed_stream = fixed_stream;
      cursor.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (cursor.fd < 0) throw_errno("cannot open log '" + path + "'");
      cursors_.push_back(std::move(cursor));
      cursors_.back().index = std::make_unique<LogIndexReader>(path);
    }
  }
  if (!role_found) {
    throw Error(Code::kNotFound, "app '" + launch.app_id + "' has no role '" + role +
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
  const AppStatus status = registry_.load_status_from_dir(app_dir_);
  if (watch_ != nullptr) watch_->watch_supervisor(status);
  return is_terminal_state(status.state);
}

bool LocalLogStream::pump(Cursor& cursor, const LogSink& sink, size_t* budget) {
  while (*budget > 0 && !cursor.done) {
    const size_t old_size = cursor.buffer.size();
    cursor.buffer.resize(old_size + kReadChunk);
    const ssize_t n = ::read(cursor.fd, cursor.buffer.data() + old_size, kReadChunk);
    cursor.buffer.resize(old_size + (n > 0 ? static_cast<size_t>(n) : 0));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("cannot read the log of " + cursor.role);
    if (n == 0) return true;
    *budget -= std::min(*budget, static_cast<size_t>(n));
    emit_lines(cursor, sink, false);
  }
  return false;
}

void LocalLogStream::emit_lines(Cursor& cursor, const LogSink& sink, bool final) {
  // The index is read after the data, so it covers every byte in the buffer.
  cursor.index->refresh();
  size_t start = 0;
  while (start < cursor.buffer.size() && !cursor.done) {
    const uint64_t line_offset = cursor.buffer_offset + start;
    size_t end = cursor.buffer.find('\n', start);
    // A line the writer ended without '\n' (a stream's last line) ends at the next line start.
    const uint64_t next_start = cursor.index->next_line_start_after(line_offset);
    if (next_start - cursor.buffer_offset <= cursor.buffer.size() &&
        (end == std::string::npos || end >= next_start - cursor.buffer_offset)) {
      end = next_start - cursor.buffer_offset - 1;
    }
    if (end == std::string::npos) {
      if (!final) break;
      end = cursor.buffer.size() - 1;
    }
    const LogIndexEntry* entry = cursor.index->entry_for(line_offset);
    LogLine line;
    line.role = cursor.role;
    line.replica_id = cursor.replica_id;
    line.timestamp_ns = entry != nullptr ? entry->timestamp_ns : 0;
    line.stream = cursor.fixed_stream != 0 ? cursor.fixed_stream
                  : entry != nullptr       ? entry->stream
                                           : SORTIE_STREAM_STDOUT;
    line.data = std::string_view(cursor.buffer).substr(start, end + 1 - start);
    start = end + 1;
    if (until_.has_value() && line.timestamp_ns > *until_) {
      cursor.done = true;  // timestamps only grow within a file
      break;
    }
    if (since_.has_value() && line.timestamp_ns < *since_) continue;
    sink.emit(line);
    ++emitted_;
  }
  cursor.buffer.erase(0, start);
  cursor.buffer_offset += start;
}

bool LocalLogStream::next(int64_t timeout_ms, const LogSink& sink) {
  const size_t emitted_before = emitted_;
  bool waited = false;
  for (;;) {
    // Checked before reading: everything written before the app ended is then read below.
    const bool ended = !follow_ || app_ended();
    bool all_at_end = true;
    bool any_open = false;
    size_t budget = kBudgetPerCall;
    for (Cursor& cursor : cursors_) {
      if (cursor.done) continue;
      const bool at_end = pump(cursor, sink, &budget);
      all_at_end = all_at_end && at_end;
      if (at_end && ended) {
        // A final line without '\n' is whole only once its writer is gone.
        if (follow_ || app_ended()) emit_lines(cursor, sink, true);
        cursor.done = true;
      } else if (at_end && until_.has_value() && now_ns() > *until_) {
        cursor.done = true;
      }
      any_open = any_open || !cursor.done;
    }
    if (!any_open) return false;
    if (emitted_ > emitted_before || !all_at_end || waited) return true;
    waited = true;
    if (watch_->wait(timeout_ms) != AppWatch::Wake::kChanged) return true;
  }
}

}  // namespace sortie::local
