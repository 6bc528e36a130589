// File: core/cli/log_printer.hpp
//
// Prints log lines (as the runner API reads them, whole and filtered) as `ROLE/REPLICA LINE`, in
// order, in large write()s to stdout.
#ifndef SORTIE_CLI_LOG_PRINTER_HPP
#define SORTIE_CLI_LOG_PRINTER_HPP

#include <cstdint>
#include <sortie/runner.hpp>
#include <string>
#include <vector>

namespace sortie::cli {

class LogPrinter {
 public:
  // `prefix`: print "role/replica " before each line.
  explicit LogPrinter(bool prefix);
  ~LogPrinter();
  LogPrinter(const LogPrinter&) = delete;
  LogPrinter& operator=(const LogPrinter&) = delete;

  // Prints a batch of lines and writes them out (a running app's output shows as it comes).
  // Returns false once SIGINT/SIGTERM arrived, to stop reading: fit for Runner::log_lines.
  bool print(const std::vector<runner::LogLine>& lines);

 private:
  void print(const runner::LogLine& line);
  void flush();
  bool prefix_;
  std::string out_;
  std::string prefix_role_;  // the last prefix, kept formatted: lines come in runs per replica
  uint32_t prefix_replica_ = 0;
  std::string prefix_text_;
};

}  // namespace sortie::cli

#endif  // SORTIE_CLI_LOG_PRINTER_HPP
