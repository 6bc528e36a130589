// The on-disk log format of a replica: a data file (stdout.log, stderr.log, combined.log) and a
// sidecar "<data>.idx" of fixed-size entries saying from which byte offset on the data was written
// at which time and by which stream. An entry is appended whenever the millisecond or the stream
// changes, always *before* the data it describes, so a reader that reads data first and the index
// afterwards always has an entry for every byte it holds. An entry flagged kLogLineStart says a
// new line starts at its offset even though the data before it lacks a '\n' (a stream's last
// line, flushed when the stream ended), so such a line never runs into the next one.
#ifndef SORTIE_LOCAL_LOG_INDEX_HPP
#define SORTIE_LOCAL_LOG_INDEX_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::local {

struct LogIndexEntry {
  uint64_t offset;
  int64_t timestamp_ns;
  int32_t stream;  // SORTIE_STREAM_*
  uint32_t flags;  // kLogLineStart or 0
};
constexpr uint32_t kLogLineStart = 1;
static_assert(sizeof(LogIndexEntry) == 24, "the index format is 24-byte records");

inline std::string log_index_path(const std::string& data_path) { return data_path + ".idx"; }

// Appends to a data file and its index (writer side: the supervisor).
class IndexedLogWriter {
 public:
  explicit IndexedLogWriter(const std::string& data_path);
  ~IndexedLogWriter();
  IndexedLogWriter(const IndexedLogWriter&) = delete;
  IndexedLogWriter& operator=(const IndexedLogWriter&) = delete;

  // Opens (creates) the files on first use, and again after close_files().
  void append(std::string_view bytes, int32_t stream, int64_t timestamp_ns);
  // The data so far ends a line, with or without '\n': the next append starts a new one.
  void end_line();
  // Gives back the two descriptors until the next append (see OutputFileBudget).
  void close_files();

 private:
  void open_files();

  std::string path_;
  int data_fd_ = -1;
  int index_fd_ = -1;
  uint64_t offset_ = 0;
  int64_t last_millisecond_ = -1;
  int32_t last_stream_ = 0;
  bool ends_with_newline_ = true;
  bool line_start_pending_ = false;
};

// Reads index entries appended since the last call (reader side), keeping a partially written
// trailing record for the next call. An index the supervisor has not created yet reads as empty.
class LogIndexReader {
 public:
  explicit LogIndexReader(const std::string& data_path);
  ~LogIndexReader();
  LogIndexReader(const LogIndexReader&) = delete;
  LogIndexReader& operator=(const LogIndexReader&) = delete;

  void refresh();
  // The entry covering `offset` (the last one at or before it); entries must be queried with
  // non-decreasing offsets. Returns nullptr before the first entry.
  const LogIndexEntry* entry_for(uint64_t offset);
  // The offset of the first kLogLineStart entry after `offset`, or UINT64_MAX; queried with
  // non-decreasing offsets.
  uint64_t next_line_start_after(uint64_t offset);

 private:
  bool open_if_created();

  std::string path_;
  int fd_ = -1;
  std::string pending_;
  std::vector<LogIndexEntry> entries_;
  size_t position_ = 0;
  size_t line_start_position_ = 0;
};

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_LOG_INDEX_HPP
