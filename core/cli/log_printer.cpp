#include "log_printer.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <sortie/session/app_waiter.hpp>

namespace sortie::cli {

namespace {
// Output is gathered here and written in blocks of about this size: a million short lines cost
// a hundred write() calls, and no stdio formatting per line.
constexpr size_t kFlushAt = 64 << 10;
}  // namespace

LogPrinter::LogPrinter(bool prefix) : prefix_(prefix) {
  out_.reserve(kFlushAt + 4096);
  std::fflush(stdout);  // whatever stdio holds goes first
}

LogPrinter::~LogPrinter() { flush(); }

void LogPrinter::flush() {
  size_t done = 0;
  while (done < out_.size()) {
    const ssize_t n = ::write(STDOUT_FILENO, out_.data() + done, out_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // a closed pipe (`| head`): the rest has nowhere to go
    done += static_cast<size_t>(n);
  }
  out_.clear();
}

void LogPrinter::print(const runner::LogLine& line) {
  if (prefix_) {
    if (line.role != prefix_role_ || line.replica != prefix_replica_) {
      prefix_role_ = line.role;
      prefix_replica_ = line.replica;
      prefix_text_ = prefix_role_ + "/" + std::to_string(line.replica) + " ";
    }
    out_ += prefix_text_;
  }
  out_ += line.text;
  if (line.text.empty() || line.text.back() != '\n') out_ += '\n';
  if (out_.size() >= kFlushAt) flush();
}

bool LogPrinter::print(const std::vector<runner::LogLine>& lines) {
  for (const auto& line : lines) print(line);
  flush();
  return session::interrupted() == 0;
}

}  // namespace sortie::cli
