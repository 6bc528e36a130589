#include "log_printer.hpp"

#include <regex.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <sortie/core/error.hpp>
#include <sortie/session/app_waiter.hpp>

namespace sortie::cli {

struct LogPrinter::Regex {
  regex_t compiled;
  ~Regex() { regfree(&compiled); }
};

namespace {
// Output is gathered here and written in blocks of about this size: a million short lines cost
// a hundred write() calls, and no stdio formatting per line.
constexpr size_t kFlushAt = 64 << 10;
}  // namespace

LogPrinter::LogPrinter(const LogFilter& filter)
    : replicas_(filter.replicas), prefix_(filter.prefix) {
  out_.reserve(kFlushAt + 4096);
  std::fflush(stdout);  // whatever stdio holds goes first
  if (filter.regex) {
    regex_ = std::make_unique<Regex>();
    const int rc = regcomp(&regex_->compiled, filter.regex->c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char message[256];
      regerror(rc, &regex_->compiled, message, sizeof message);
      regex_.reset();
      throw core::Error::invalid_argument("--regex '" + *filter.regex + "': " + message);
    }
  }
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

void LogPrinter::print(const core::LogLineView& line) {
  if (!replicas_.empty() && replicas_.count(line.replica_id) == 0) return;
  std::string_view text = line.data;
  if (regex_) {
    // regexec needs a NUL-terminated line without its newline.
    std::string_view body = text;
    if (!body.empty() && body.back() == '\n') body.remove_suffix(1);
    scratch_.assign(body);
    if (regexec(&regex_->compiled, scratch_.c_str(), 0, nullptr, 0) != 0) return;
  }
  if (prefix_) {
    if (line.role != prefix_role_ || line.replica_id != prefix_replica_) {
      prefix_role_.assign(line.role);
      prefix_replica_ = line.replica_id;
      prefix_text_ = prefix_role_ + "/" + std::to_string(line.replica_id) + " ";
    }
    out_ += prefix_text_;
  }
  out_ += text;
  if (text.empty() || text.back() != '\n') out_ += '\n';
  ++lines_;
  if (out_.size() >= kFlushAt) flush();
}

bool LogPrinter::drain(core::LogReader& reader) {
  const auto on_line = [this](const core::LogLineView& line) { print(line); };
  while (session::interrupted() == 0) {
    const uint64_t before = lines_;
    if (!reader.next(500, on_line)) {
      flush();
      return true;
    }
    if (lines_ != before) flush();  // show a running app's output as it comes
  }
  flush();
  return false;
}

}  // namespace sortie::cli
