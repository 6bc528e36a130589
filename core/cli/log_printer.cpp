#include "log_printer.hpp"

#include <regex.h>

#include <cstdio>
#include <sortie/core/error.hpp>

#include "app_waiter.hpp"

namespace sortie::cli {

struct LogPrinter::Regex {
  regex_t compiled;
  ~Regex() { regfree(&compiled); }
};

LogPrinter::LogPrinter(const LogFilter& filter)
    : replicas_(filter.replicas), prefix_(filter.prefix) {
  static char buffer[1 << 20];
  std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
  if (filter.regex) {
    regex_ = std::make_unique<Regex>();
    const int rc = regcomp(&regex_->compiled, filter.regex->c_str(), REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
      char message[256];
      regerror(rc, &regex_->compiled, message, sizeof message);
      regex_.reset();
      throw core::Error("--regex '" + *filter.regex + "': " + message);
    }
  }
}

LogPrinter::~LogPrinter() { std::fflush(stdout); }

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
    std::fwrite(line.role.data(), 1, line.role.size(), stdout);
    std::fprintf(stdout, "/%u ", line.replica_id);
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (text.empty() || text.back() != '\n') std::fputc('\n', stdout);
  ++lines_;
}

bool LogPrinter::drain(core::LogReader& reader) {
  const auto on_line = [this](const core::LogLineView& line) { print(line); };
  while (interrupted() == 0) {
    const uint64_t before = lines_;
    if (!reader.next(500, on_line)) {
      std::fflush(stdout);
      return true;
    }
    if (lines_ != before) std::fflush(stdout);  // show a running app's output as it comes
  }
  std::fflush(stdout);
  return false;
}

}  // namespace sortie::cli
