#include "log_stream.hpp"

#include <unistd.h>

#include <chrono>
#include <sortie/limits.hpp>
#include <thread>

#include "app_status.hpp"
#include "job_files.hpp"
#include "json_fields.hpp"
#include "replica_files.hpp"

namespace sortie::slurm {
namespace {

// The regular file `path` (a job can put anything there: job_files.hpp), or a closed stream
// while it does not exist. Opened through its checked descriptor, so it is the file checked.
std::ifstream open_job_stream(const std::string& path) {
  const int fd = plugins_common::open_job_file(path);
  if (fd < 0) return {};
  std::ifstream stream("/proc/self/fd/" + std::to_string(fd), std::ios::binary);
  ::close(fd);
  return stream;
}

// std::getline that keeps at most `max_bytes` of the line and drops the rest (docs/limits.md
// L-26); the bytes it read, newline included, or 0 at the end of the file.
size_t getline_bounded(std::istream& in, std::string& line, size_t max_bytes) {
  line.clear();
  std::streambuf& buffer = *in.rdbuf();
  size_t read = 0;
  for (;;) {
    const int c = buffer.sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(read == 0 ? std::ios::eofbit | std::ios::failbit : std::ios::eofbit);
      return read;
    }
    ++read;
    if (c == '\n') return read;
    if (line.size() < max_bytes) line.push_back(static_cast<char>(c));
  }
}

}  // namespace

SlurmLogStream::SlurmLogStream(const BatchPlan& plan, std::string_view request_text,
                               std::function<bool()> app_ended)
    : job_dir_(plan.job_dir),
      max_line_(limits::value(limits::kLogLineBytes)),
      app_ended_(std::move(app_ended)) {
  const std::string what = "sortie.log_request/1";
  const rapidjson::Document request = plugins_common::parse_object(request_text, what);
  const std::string role = plugins_common::string_member(request, "role", what);
  const bool all_replicas = plugins_common::find_member(request, "replica") == nullptr;
  const int64_t replica = plugins_common::int_member(request, "replica", what, 0);
  const std::string streams = plugins_common::string_member(request, "streams", what, "combined");
  if (streams != "stdout" && streams != "stderr" && streams != "combined" && streams != "metrics") {
    throw Error::invalid_argument(what + ": streams '" + streams +
                                  "' is not one of stdout, stderr, combined, metrics");
  }
  metrics_ = streams == "metrics";
  file_ = metrics_ ? std::string(kMetricsFileName) : streams + ".log";
  if (plugins_common::find_member(request, "since") != nullptr)
    since_ = plugins_common::int_member(request, "since", what, 0);
  if (plugins_common::find_member(request, "until") != nullptr)
    until_ = plugins_common::int_member(request, "until", what, 0);
  follow_ = plugins_common::bool_member(request, "follow", what, false);
  bool role_found = role.empty();
  for (size_t role_index = 0; role_index < plan.roles.size(); ++role_index) {
    const RolePlan& role_plan = plan.roles[role_index];
    if (!role.empty() && role_plan.name != role) continue;
    role_found = true;
    if (!all_replicas && (replica < 0 || replica >= role_plan.replicas)) {
      throw Error::not_found("app '" + plan.app_id + "' role '" + role_plan.name +
                             "' has no replica " + std::to_string(replica) + " (it has " +
                             std::to_string(role_plan.replicas) + ")");
    }
    for (int64_t id = 0; id < role_plan.replicas; ++id) {
      if (!all_replicas && id != replica) continue;
      Cursor& cursor = cursors_.emplace_back();
      cursor.role = role_plan.name;
      cursor.ledger =
          plan.job_dir + "/" + plan.job_file_name("attempts", plan.job_of_role(role_index));
      cursor.replica = static_cast<uint32_t>(id);
    }
  }
  if (!role_found) throw Error::not_found("app '" + plan.app_id + "' has no role '" + role + "'");
  for (Cursor& cursor : cursors_) open_attempt(cursor);
}

void SlurmLogStream::open_attempt(Cursor& cursor) {
  const std::string dir = attempt_dir(job_dir_, cursor.role, cursor.replica, cursor.attempt);
  cursor.data = open_job_stream(dir + "/" + file_);
  cursor.times = open_job_stream(dir + "/" + file_ + ".ts");
  cursor.data_at = 0;
  cursor.times_at = 0;
}

bool SlurmLogStream::read_metrics_line(Cursor& cursor, bool ended) {
  if (!cursor.data.is_open()) {
    open_attempt(cursor);
    if (!cursor.data.is_open()) return false;
  }
  cursor.data.clear();
  cursor.data.seekg(cursor.data_at);
  std::string line;
  const size_t read = getline_bounded(cursor.data, line, max_line_);
  if (read == 0) return false;
  const bool whole = !cursor.data.eof();
  if (!whole && (!ended || line.empty())) return false;  // still being written
  cursor.data_at += static_cast<std::streamoff>(read);
  cursor.line = whole ? line + '\n' : line;
  cursor.timestamp_ns = 0;  // the job writes no times
  cursor.stream = SORTIE_STREAM_METRICS;
  return true;
}

// The time file is written after the data, so a whole time line means its data line is whole.
bool SlurmLogStream::read_line(Cursor& cursor) {
  if (!cursor.times.is_open() || !cursor.data.is_open()) {
    open_attempt(cursor);
    if (!cursor.times.is_open() || !cursor.data.is_open()) return false;
  }
  cursor.times.clear();
  cursor.times.seekg(cursor.times_at);
  std::string stamp;
  if (getline_bounded(cursor.times, stamp, max_line_) == 0 || cursor.times.eof()) return false;
  cursor.times_at = cursor.times.tellg();
  cursor.data.clear();
  cursor.data.seekg(cursor.data_at);
  const size_t read = getline_bounded(cursor.data, cursor.line, max_line_);
  if (!cursor.data.eof()) cursor.line += '\n';
  cursor.data.clear();
  cursor.data_at += static_cast<std::streamoff>(read);
  const size_t space = stamp.find(' ');
  cursor.timestamp_ns = std::stoll(stamp.substr(0, space));
  cursor.stream =
      space == std::string::npos ? SORTIE_STREAM_STDOUT : std::stoi(stamp.substr(space + 1));
  return true;
}

// Makes cursor.ready true with its next line, moving on to later attempts as they appear.
bool SlurmLogStream::advance(Cursor& cursor, bool ended) {
  while (!cursor.done && !cursor.ready) {
    if (metrics_ ? read_metrics_line(cursor, ended) : read_line(cursor)) {
      if (until_ && cursor.timestamp_ns > *until_) {
        cursor.done = true;
        return false;
      }
      cursor.ready = !since_ || cursor.timestamp_ns >= *since_;
      continue;
    }
    // This attempt has nothing more now: it is over when its replica exited or a later one began.
    const bool later = cursor.attempt + 1 < read_ledger(cursor.ledger).started;
    if (later) {
      ++cursor.attempt;
      open_attempt(cursor);
      continue;
    }
    if (!follow_ || ended) cursor.done = true;
    return false;
  }
  return cursor.ready;
}

bool SlurmLogStream::next(int64_t timeout_ms, const LogSink& sink) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const bool ended = !follow_ || app_ended_();
    size_t emitted = 0;
    for (;;) {
      Cursor* earliest = nullptr;
      for (Cursor& cursor : cursors_) {
        if (advance(cursor, ended) &&
            (earliest == nullptr || cursor.timestamp_ns < earliest->timestamp_ns)) {
          earliest = &cursor;
        }
      }
      if (earliest == nullptr) break;
      sink.emit({earliest->stream, earliest->role, earliest->replica, earliest->timestamp_ns,
                 earliest->line});
      earliest->ready = false;
      ++emitted;
    }
    bool open = false;
    for (const Cursor& cursor : cursors_) open = open || !cursor.done;
    if (!open) return false;
    if (emitted > 0 || std::chrono::steady_clock::now() >= deadline) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

}  // namespace sortie::slurm
