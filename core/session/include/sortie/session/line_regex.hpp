// File: core/session/include/sortie/session/line_regex.hpp
//
// POSIX extended regular expressions over log lines (like grep -E), bounded by docs/limits.md
// L-15 before regcomp: `sortie log --regex` and the measurement patterns of
// docs/experiments.md "Measurements" both use it.
#ifndef SORTIE_SESSION_LINE_REGEX_HPP
#define SORTIE_SESSION_LINE_REGEX_HPP

#include <regex.h>

#include <optional>
#include <string>

namespace sortie::session {

// Why `pattern` is not a valid pattern (the regcomp message, or that its repetitions written out
// pass L-15), or nullopt.
std::optional<std::string> regex_error(const std::string& pattern);

class LineRegex {
 public:
  // Throws Error(INVALID_ARGUMENT) "<what> '<pattern>': <why>".
  LineRegex(const std::string& pattern, const std::string& what);
  ~LineRegex();
  LineRegex(const LineRegex&) = delete;
  LineRegex& operator=(const LineRegex&) = delete;

  // `line` without its newline.
  bool matches(const std::string& line) const;

 private:
  regex_t compiled_;
};

}  // namespace sortie::session

#endif  // SORTIE_SESSION_LINE_REGEX_HPP
