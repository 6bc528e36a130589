// log_open()/log_next() of the local scheduler (payloads.md P-10): reads the replicas' log files
// written by the supervisor and hands over whole lines with role, replica, stream and timestamp.
// Lines of several replicas are merged by timestamp (ties keep role and replica order); while
// following a running app, a replica with nothing new does not hold back the others. The files are
// the job's to replace: only regular files are read, and a line longer than L-26 is handed over
// cut (docs/limits.md).
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
  // One log file being read, with its next whole line (if any) parsed but not yet handed over.
  struct Cursor {
    std::string role;
    uint32_t replica_id = 0;
    int32_t fixed_stream = 0;  // 0 for combined.log, whose index says the stream of each line
    std::string path;
    int fd = -1;  // -1 until the supervisor has created the file
    std::unique_ptr<LogIndexReader> index;
    std::string buffer;  // bytes read; buffer[consumed..] not yet handed over
    size_t consumed = 0;
    uint64_t buffer_offset = 0;  // file offset of buffer[0]
    bool ready = false;          // `line` holds the next line to hand over
    LogLine line;                // its data views `buffer`, or `cut`
    std::string cut;             // the first L-26 bytes of a longer line, and a newline
    bool skipping = false;       // the rest of a cut line is being read and dropped
    bool done = false;
  };

  // Makes cursor.line the next line passing since/until, reading the file as needed. Returns
  // false when no whole line is available now; `writer_gone` says the file will not grow, so an
  // unterminated tail is a whole line and end of file ends the cursor.
  bool ensure_line(Cursor& cursor, bool writer_gone);
  bool parse_line(Cursor& cursor, bool at_end);
  bool open_if_created(Cursor& cursor);
  bool read_more(Cursor& cursor);
  bool app_ended();

  const AppRegistry& registry_;
  std::string app_dir_;
  size_t max_line_;  // docs/limits.md L-26
  std::vector<Cursor> cursors_;
  std::optional<int64_t> since_;
  std::optional<int64_t> until_;
  bool follow_ = false;
  std::unique_ptr<AppWatch> watch_;
  size_t emitted_ = 0;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_LOG_STREAM_HPP
