// File: core/session/include/sortie/session/measurement_lines.hpp
//
// The numbers in one line a job wrote (docs/experiments.md, "Measurements"): the `key=value` and
// `key: value` pairs of a log line, or the members of a JSON object line of its metrics file.
#ifndef SORTIE_SESSION_MEASUREMENT_LINES_HPP
#define SORTIE_SESSION_MEASUREMENT_LINES_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sortie::session {

using MeasuredValues = std::vector<std::pair<std::string, double>>;  // in the line's order

// The pairs of `line` whose key is a word ([A-Za-z_][A-Za-z0-9_./-]*, not inside another word)
// followed by `=` or by `:` and spaces, and whose value is a finite decimal number ending at a
// space, punctuation or the line's end: "step=10 loss=0.53, acc: 0.71" gives step 10, loss 0.53
// and acc 0.71; "lr=1e-3x" and "name=abc" give nothing.
MeasuredValues log_line_values(std::string_view line);

// The members of a JSON object line whose values are finite numbers ({"step": 10, "loss": 0.53});
// nothing for a line that is not a JSON object.
MeasuredValues json_line_values(std::string_view line);

// A log line without torchrun's `[r]:` prefix (--tee: a line of its process of local rank r;
// `[default0]:` where its --role is "default"), and r; a line without one is whole, of rank -1
// (store::kNoRank).
struct RankedLine {
  std::string_view text;
  int32_t rank = -1;
};
RankedLine ranked_line(std::string_view line);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_MEASUREMENT_LINES_HPP
