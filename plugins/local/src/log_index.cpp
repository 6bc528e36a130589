#include "log_index.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "file_util.hpp"
#include "job_files.hpp"

namespace sortie::local {
namespace {

void write_all(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("cannot write '" + path + "'");
    data += n;
    size -= static_cast<size_t>(n);
  }
}

int open_for_append(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw_errno("cannot open '" + path + "' for writing");
  return fd;
}

}  // namespace

IndexedLogWriter::IndexedLogWriter(const std::string& data_path) : path_(data_path) {}

IndexedLogWriter::~IndexedLogWriter() { close_files(); }

void IndexedLogWriter::open_files() {
  // Either may fail (out of descriptors, say); the next append retries what is missing.
  if (data_fd_ < 0) data_fd_ = open_for_append(path_);
  if (index_fd_ < 0) index_fd_ = open_for_append(log_index_path(path_));
  struct stat info {};
  if (::fstat(data_fd_, &info) == 0) offset_ = static_cast<uint64_t>(info.st_size);
}

void IndexedLogWriter::close_files() {
  for (int* fd : {&data_fd_, &index_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

void IndexedLogWriter::append(std::string_view bytes, int32_t stream, int64_t timestamp_ns) {
  if (bytes.empty()) return;
  if (data_fd_ < 0 || index_fd_ < 0) open_files();
  const int64_t millisecond = timestamp_ns / 1000000;
  if (millisecond != last_millisecond_ || stream != last_stream_ || line_start_pending_) {
    const LogIndexEntry entry{offset_, timestamp_ns, stream,
                              line_start_pending_ ? kLogLineStart : 0};
    write_all(index_fd_, reinterpret_cast<const char*>(&entry), sizeof(entry),
              log_index_path(path_));
    last_millisecond_ = millisecond;
    last_stream_ = stream;
    line_start_pending_ = false;
  }
  write_all(data_fd_, bytes.data(), bytes.size(), path_);
  offset_ += bytes.size();
  ends_with_newline_ = bytes.back() == '\n';
}

void IndexedLogWriter::end_line() { line_start_pending_ = !ends_with_newline_; }

LogIndexReader::LogIndexReader(const std::string& data_path) : path_(log_index_path(data_path)) {
  open_if_created();
}

LogIndexReader::~LogIndexReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool LogIndexReader::open_if_created() {
  if (fd_ >= 0) return true;
  fd_ = plugins_common::open_job_file(path_);
  return fd_ >= 0;
}

void LogIndexReader::refresh() {
  if (!open_if_created()) return;
  char buffer[64 * sizeof(LogIndexEntry) * 16];
  for (;;) {
    const ssize_t n = ::read(fd_, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_errno("cannot read log index '" + path_ + "'");
    if (n == 0) break;
    pending_.append(buffer, static_cast<size_t>(n));
  }
  const size_t whole = pending_.size() / sizeof(LogIndexEntry);
  const size_t first = entries_.size();
  entries_.resize(first + whole);
  std::memcpy(entries_.data() + first, pending_.data(), whole * sizeof(LogIndexEntry));
  pending_.erase(0, whole * sizeof(LogIndexEntry));
}

const LogIndexEntry* LogIndexReader::entry_for(uint64_t offset) {
  if (entries_.empty() || entries_[0].offset > offset) return nullptr;
  while (position_ + 1 < entries_.size() && entries_[position_ + 1].offset <= offset) {
    ++position_;
  }
  return &entries_[position_];
}

uint64_t LogIndexReader::next_line_start_after(uint64_t offset) {
  line_start_position_ = std::max(line_start_position_, position_);
  while (line_start_position_ < entries_.size() &&
         (entries_[line_start_position_].offset <= offset ||
          (entries_[line_start_position_].flags & kLogLineStart) == 0)) {
    ++line_start_position_;
  }
  return line_start_position_ < entries_.size() ? entries_[line_start_position_].offset
                                                : UINT64_MAX;
}

}  // namespace sortie::local
