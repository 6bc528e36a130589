#include "pod_logs.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <sortie/app_state.hpp>
#include <sortie/log_request.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api_client.hpp"
#include "app_reader.hpp"
#include "json.hpp"
#include "manifests.hpp"

namespace sortie::kubernetes {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(500);

struct Target {
  std::string role;
  int64_t replica = 0;
};

struct Line {
  std::string role;
  uint32_t replica = 0;
  int64_t timestamp_ns = 0;
  std::string data;
};

}  // namespace

// State shared by the stream and its workers; workers outlive the stream if it is closed while
// they block on a follow request, so they hold it by shared_ptr.
struct PodLogStream::Shared {
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Line> lines;
  size_t active = 0;
  bool stop = false;
  std::optional<Error> error;
  LogRequest options;

  bool stopped() {
    std::lock_guard<std::mutex> lock(mutex);
    return stop;
  }
  // Sleeps for the poll interval unless the stream is closed first; false when closed.
  bool pause() {
    std::unique_lock<std::mutex> lock(mutex);
    return !changed.wait_for(lock, kPollInterval, [&] { return stop; });
  }
};

namespace {

// Reads one replica's log text, skipping what an earlier read of the same pod handed over.
class ReplicaReader {
 public:
  ReplicaReader(std::shared_ptr<PodLogStream::Shared> shared, Target target)
      : shared_(std::move(shared)), target_(std::move(target)) {}

  void run(const ClusterConnection& connection, const AppRef& ref) {
    try {
      ApiClient client(connection);
      const LogRequest& options = shared_->options;
      for (bool seen = false;; seen = true) {
        if (shared_->stopped()) break;
        KubernetesApp app;
        try {
          app = read_app_status(client, ref);
        } catch (const Error& e) {
          // Deleted while being followed (cancelled): everything there was has been read.
          if (seen && e.code() == Code::kNotFound) break;
          throw;
        }
        const ReplicaStatus* replica = find_replica(app.status);
        const std::string pod = app.pod_of(target_.role, target_.replica);
        if (replica != nullptr && !pod.empty() && replica->state != AppState::kPending) {
          read_pod(client, ref, pod);
        }
        if (!options.follow || is_terminal(app.status.state) || past_until_) break;
        if (!shared_->pause()) break;
      }
    } catch (const Error& e) {
      std::lock_guard<std::mutex> lock(shared_->mutex);
      if (!shared_->error) shared_->error = e;
    }
    std::lock_guard<std::mutex> lock(shared_->mutex);
    --shared_->active;
    shared_->changed.notify_all();
  }

 private:
  const ReplicaStatus* find_replica(const AppStatus& status) const {
    for (const RoleStatus& role : status.roles) {
      if (role.role != target_.role) continue;
      for (const ReplicaStatus& replica : role.replicas) {
        if (replica.id == target_.replica) return &replica;
      }
    }
    return nullptr;
  }

  void read_pod(ApiClient& client, const AppRef& ref, const std::string& pod) {
    if (pod != pod_) {  // a retry's new pod: its log starts afresh
      pod_ = pod;
      last_timestamp_ = 0;
      seen_at_last_ = 0;
      first_read_ = true;
    }
    const LogRequest& options = shared_->options;
    std::string path =
        collection_path(kCoreApi, ref.namespace_name, "pods") + "/" + pod + "/log?timestamps=true";
    if (options.follow) path += "&follow=true";
    const std::optional<int64_t> since = last_timestamp_ > 0 ? last_timestamp_ : options.since_ns;
    if (since) {
      // sinceTime has second precision on the server: ask from the whole second, filter here.
      path += "&sinceTime=" + http::url_encode(format_rfc3339(*since / 1000000000 * 1000000000));
    }
    if (options.tail && first_read_) path += "&tailLines=" + std::to_string(*options.tail);
    first_read_ = false;
    skip_at_last_ = seen_at_last_;
    buffer_.clear();
    unparsed_.clear();
    const std::string what = "read the log of pod '" + pod + "'";
    const http::Response response = client.stream(
        path,
        [&](std::string_view chunk) {
          buffer_.append(chunk);
          size_t start = 0;
          for (size_t end; (end = buffer_.find('\n', start)) != std::string::npos;
               start = end + 1) {
            take_line(std::string_view(buffer_).substr(start, end + 1 - start));
          }
          buffer_.erase(0, start);
          return !past_until_ && !shared_->stopped();
        },
        what);
    if (!buffer_.empty() && response.ok()) take_line(buffer_);
    if (response.status == 400) return;  // the container has not started (or was never created)
    if (!response.ok()) {
      http::Response error = response;
      error.body = unparsed_ + buffer_;
      client.fail(error, what);
    }
  }

  // One line "TIMESTAMP TEXT" of a timestamps=true log.
  void take_line(std::string_view line) {
    const size_t space = line.find(' ');
    const auto timestamp =
        space == std::string_view::npos ? std::nullopt : parse_rfc3339(line.substr(0, space));
    if (!timestamp) {
      unparsed_.append(line);  // an error body, which the caller reports
      return;
    }
    if (*timestamp < last_timestamp_) return;
    if (*timestamp == last_timestamp_ && skip_at_last_ > 0) {
      --skip_at_last_;
      return;
    }
    if (*timestamp == last_timestamp_) {
      ++seen_at_last_;
    } else {
      last_timestamp_ = *timestamp;
      seen_at_last_ = 1;
    }
    const LogRequest& options = shared_->options;
    if (options.since_ns && *timestamp < *options.since_ns) return;
    if (options.until_ns && *timestamp >= *options.until_ns) {
      past_until_ = true;
      return;
    }
    Line out;
    out.role = target_.role;
    out.replica = static_cast<uint32_t>(target_.replica);
    out.timestamp_ns = *timestamp;
    out.data = std::string(line.substr(space + 1));
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->lines.push_back(std::move(out));
    shared_->changed.notify_all();
  }

  std::shared_ptr<PodLogStream::Shared> shared_;
  Target target_;
  std::string pod_;
  int64_t last_timestamp_ = 0;
  size_t seen_at_last_ = 0;  // lines handed over with last_timestamp_
  size_t skip_at_last_ = 0;  // of those, still to skip in the current read
  bool first_read_ = true;
  bool past_until_ = false;
  std::string buffer_;
  std::string unparsed_;
};

// Pod logs hold stdout and stderr together.
LogRequest read_options(std::string_view request_text) {
  LogRequest request = read_log_request(request_text);
  if (request.streams != LogStreams::kCombined) {
    throw Error::unimplemented(
        "kubernetes: pod logs hold stdout and stderr together; read them with --streams "
        "combined instead of " +
        std::string(log_streams_name(request.streams)));
  }
  return request;
}

}  // namespace

PodLogStream::PodLogStream(const ClusterConnection& connection, const AppRef& ref,
                           std::string_view request)
    : shared_(std::make_shared<Shared>()) {
  shared_->options = read_options(request);
  const std::string& role = shared_->options.role;
  const std::optional<int64_t>& replica = shared_->options.replica;

  ApiClient client(connection);
  const AppStatus status = read_app_status(client, ref).status;
  std::vector<Target> targets;
  std::string roles;
  bool role_found = role.empty();
  for (const RoleStatus& r : status.roles) {
    roles += (roles.empty() ? "" : ", ") + r.role;
    if (!role.empty() && r.role != role) continue;
    role_found = true;
    for (const ReplicaStatus& x : r.replicas) {
      if (!replica || x.id == *replica) targets.push_back({r.role, x.id});
    }
  }
  if (!role_found) {
    throw Error::not_found("app " + ref.id() + " has no role '" + role + "' (roles: " + roles +
                           ")");
  }
  if (targets.empty()) {
    throw Error::not_found("app " + ref.id() + " has no replica " +
                           std::to_string(replica.value_or(0)) + " of role '" + role + "'");
  }
  shared_->active = targets.size();
  for (Target& target : targets) {
    // Detached: a worker blocked on a follow request ends by itself when its container exits or
    // on its next line after the stream is closed; it only touches what it shares by shared_ptr.
    std::thread([shared = shared_, target = std::move(target), connection, ref] {
      ReplicaReader(shared, target).run(connection, ref);
    }).detach();
  }
}

PodLogStream::~PodLogStream() {
  std::lock_guard<std::mutex> lock(shared_->mutex);
  shared_->stop = true;
  shared_->changed.notify_all();
}

bool PodLogStream::next(int64_t timeout_ms, const LogSink& sink) {
  std::deque<Line> ready;
  bool ended = false;
  {
    std::unique_lock<std::mutex> lock(shared_->mutex);
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::milliseconds(std::max<int64_t>(timeout_ms, 0));
    const bool follow = shared_->options.follow;
    shared_->changed.wait_until(lock, until, [&] {
      return shared_->error || shared_->active == 0 || (follow && !shared_->lines.empty());
    });
    if (shared_->error) throw *shared_->error;
    // Without follow, lines go out once every replica is read, merged in time order.
    if (!follow && shared_->active > 0) return true;
    ready.swap(shared_->lines);
    ended = shared_->active == 0;
  }
  if (!shared_->options.follow) {
    std::stable_sort(ready.begin(), ready.end(),
                     [](const Line& a, const Line& b) { return a.timestamp_ns < b.timestamp_ns; });
  }
  for (const Line& line : ready) {
    LogLine out;
    out.stream = SORTIE_STREAM_STDOUT;
    out.role = line.role;
    out.replica_id = line.replica;
    out.timestamp_ns = line.timestamp_ns;
    out.data = line.data;
    sink.emit(out);
  }
  return !ended;
}

}  // namespace sortie::kubernetes
