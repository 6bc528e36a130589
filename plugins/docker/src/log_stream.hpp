// log_open()/log_next() of local_docker (payloads.md P-10): one reader thread per selected
// container reads GET /containers/{id}/logs (demultiplexed by LogFrameDecoder) into a queue that
// next() hands over as whole lines. With `follow`, a reader keeps reading until its container is
// neither running nor restarting; it reconnects at least once a second (resuming after the last
// entry's timestamp), so closing the stream never waits on an idle container for long.
#ifndef SORTIE_DOCKER_LOG_STREAM_HPP
#define SORTIE_DOCKER_LOG_STREAM_HPP

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <sortie/log_request.hpp>
#include <sortie/plugin.hpp>
#include <string>
#include <thread>
#include <vector>

namespace sortie::docker {

struct LogTarget {
  std::string container;
  std::string role;
  uint32_t replica_id = 0;
};

class DockerLogStream : public LogStream {
 public:
  DockerLogStream(std::string socket_path, std::string api_version, std::vector<LogTarget> targets,
                  LogRequest request);
  ~DockerLogStream() override;

  bool next(int64_t timeout_ms, const LogSink& sink) override;

 private:
  struct QueuedLine {
    int32_t stream;
    size_t target;
    int64_t timestamp_ns;
    std::string data;
  };
  void read_container(size_t index);
  std::string logs_path(const LogTarget& target, int64_t resume_after_ns) const;

  std::string socket_path_;
  std::string api_version_;
  std::vector<LogTarget> targets_;
  LogRequest request_;

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<QueuedLine> queue_;
  size_t active_ = 0;
  std::optional<Error> error_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> readers_;
};

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_LOG_STREAM_HPP
