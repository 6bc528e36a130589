#include <chrono>
#include <fstream>
#include <sortie/error.hpp>
#include <sortie/log_request.hpp>
#include <sortie/process.hpp>
#include <sortie/process_logs.hpp>
#include <thread>

namespace sortie {
namespace {

class ProcessLogs final : public LogStream {
 public:
  ProcessLogs(std::vector<ReplicaProcess> replicas, bool follow)
      : replicas_(std::move(replicas)), offsets_(replicas_.size(), 0), follow_(follow) {}

  bool next(int64_t timeout_ms, const LogSink& sink) override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      // Checked before reading: all a process wrote before it ended is then read below.
      const bool ended = !follow_ || all_ended();
      bool emitted = false;
      for (size_t i = 0; i < replicas_.size(); ++i) emitted |= read_lines(i, ended, sink);
      if (ended) return false;
      if (emitted || std::chrono::steady_clock::now() >= deadline) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

 private:
  bool all_ended() const {
    for (const ReplicaProcess& replica : replicas_) {
      if (process_state(replica.path) == AppState::kRunning) {
        return false;
      }
    }
    return true;
  }

  // Emits the whole lines written since the last call; a last line without '\n' only once its
  // process has ended.
  bool read_lines(size_t i, bool ended, const LogSink& sink) {
    std::ifstream file(replicas_[i].path + ".log", std::ios::binary);
    file.seekg(static_cast<std::streamoff>(offsets_[i]));
    const std::string text(std::istreambuf_iterator<char>(file), {});
    size_t start = 0;
    for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
      emit(i, text.substr(start, end + 1 - start), sink);
    }
    if (ended && start < text.size()) {
      emit(i, text.substr(start) + "\n", sink);
      start = text.size();
    }
    offsets_[i] += start;
    return start > 0;
  }

  void emit(size_t i, const std::string& line, const LogSink& sink) const {
    sink.emit({SORTIE_STREAM_STDOUT, replicas_[i].role,
               static_cast<uint32_t>(replicas_[i].replica_id), 0, line});
  }

  std::vector<ReplicaProcess> replicas_;
  std::vector<size_t> offsets_;
  bool follow_;
};

}  // namespace

std::unique_ptr<LogStream> open_process_logs(const std::vector<ReplicaProcess>& replicas,
                                             std::string_view request_json,
                                             std::string_view scheduler) {
  const LogRequest request = read_log_request(request_json);
  if (request.streams != LogStreams::kCombined || request.since_ns || request.until_ns ||
      request.tail) {
    throw Error::unimplemented(std::string(scheduler) +
                               " keeps one combined, untimed log per replica: drop --streams, "
                               "--since, --until and --tail");
  }
  std::vector<ReplicaProcess> selected;
  bool role_found = request.role.empty();
  for (const ReplicaProcess& replica : replicas) {
    role_found = role_found || replica.role == request.role;
    if (request.selects(replica.role, replica.replica_id)) selected.push_back(replica);
  }
  if (!role_found) throw Error::not_found("the app has no role '" + request.role + "'");
  return std::make_unique<ProcessLogs>(std::move(selected), request.follow);
}

}  // namespace sortie
