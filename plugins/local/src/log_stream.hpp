// log_open()/log_next() of the local scheduler (payloads.md P-10): reads the replicas' log files
// written by the supervisor and hands over whole lines with role, replica, stream and timestamp.
#ifndef SORTIE_LOCAL_LOG_STREAM_HPP
#define SORTIE_LOCAL_LOG_STREAM_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <sortie/plugin.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "app_registry.hpp"
#include "app_watch.hpp"
#include "log_index.hpp"

namespace sortie::local {

class LocalLogStream : public LogStream {
 public:
  // request: "sortie.log_request/1". Throws NOT_FOUND for an unknown role or replica.
  LocalLogStream(const AppRegistry& registry, std::string app_dir, std::string_view request);
  ~LocalLogStream() override;

  bool next(int64_t timeout_ms, const LogSink& sink) override;

 private:
  // One log file being read.
  struct Cursor {
    std::string role;
    uint32_t replica_id = 0;
    int32_t fixed_stream = 0;  // 0 for combined.log, whose index says the stream of each line
    int fd = -1;
    std::unique_ptr<LogIndexReader> index;
    std::string buffer;          // bytes read but not yet handed over
    uint64_t buffer_offset = 0;  // file offset of buffer[0]
    bool done = false;
  };

  // Reads what the file holds now (at most *budget bytes) and emits its whole lines. Returns
  // true at end of file.
  bool pump(Cursor& cursor, const LogSink& sink, size_t* budget);
  void emit_lines(Cursor& cursor, const LogSink& sink, bool final);
  bool app_ended();

  const AppRegistry& registry_;
  std::string app_dir_;
  std::vector<Cursor> cursors_;
  std::optional<int64_t> since_;
  std::optional<int64_t> until_;
  bool follow_ = false;
  std::unique_ptr<AppWatch> watch_;
  size_t emitted_ = 0;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_LOG_STREAM_HPP
