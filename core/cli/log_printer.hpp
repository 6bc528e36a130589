// File: core/cli/log_printer.hpp
//
// Prints log lines as `ROLE/REPLICA LINE`, whole and in order, in large write()s to stdout.
// The regular expression (POSIX extended, like grep -E) is applied to whole lines, so a match
// never depends on how a backend chunked its output.
#ifndef SORTIE_CLI_LOG_PRINTER_HPP
#define SORTIE_CLI_LOG_PRINTER_HPP

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <sortie/core/plugin_host.hpp>
#include <string>

namespace sortie::cli {

struct LogFilter {
  std::optional<std::string> regex;
  std::set<uint32_t> replicas;  // empty = all
  bool prefix = true;           // print "role/replica " before each line
};

class LogPrinter {
 public:
  explicit LogPrinter(const LogFilter& filter);
  ~LogPrinter();
  LogPrinter(const LogPrinter&) = delete;
  LogPrinter& operator=(const LogPrinter&) = delete;

  // Reads `reader` to its end. Returns false if interrupted (SIGINT/SIGTERM) first.
  bool drain(core::LogReader& reader);
  uint64_t lines_printed() const { return lines_; }

 private:
  void print(const core::LogLineView& line);
  void flush();
  struct Regex;
  std::unique_ptr<Regex> regex_;
  std::set<uint32_t> replicas_;
  bool prefix_;
  uint64_t lines_ = 0;
  std::string scratch_;
  std::string out_;
  std::string prefix_role_;  // the last prefix, kept formatted: lines come in runs per replica
  uint32_t prefix_replica_ = 0;
  std::string prefix_text_;
};

}  // namespace sortie::cli

#endif  // SORTIE_CLI_LOG_PRINTER_HPP
