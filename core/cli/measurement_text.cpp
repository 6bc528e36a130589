#include "measurement_text.hpp"

#include <charconv>
#include <cstdio>

#include "printable.hpp"

namespace sortie::cli {

std::string value_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string exact_value_text(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return std::string(text, result.ptr);
}

std::string series_source_text(const store::MeasurementSeries& series) {
  std::string text = printable(series.role) + "/" + std::to_string(series.replica_id);
  if (series.rank != store::kNoRank) text += "[" + std::to_string(series.rank) + "]";
  return text;
}

void rank_json(session::JsonText& out, int32_t rank) {
  out.key("rank");
  if (rank == store::kNoRank) {
    out.null();
  } else {
    out.number(int64_t{rank});
  }
}

}  // namespace sortie::cli
