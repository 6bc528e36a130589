// The numbers in one line a job wrote (measurement_lines.hpp).
#include <rapidjson/document.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <sortie/session/measurement_lines.hpp>

namespace sortie::session {
namespace {

bool starts_key(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }

bool inside_key(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' ||
         c == '-';
}

bool inside_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

}  // namespace

MeasuredValues log_line_values(std::string_view line) {
  MeasuredValues values;
  size_t i = 0;
  while (i < line.size()) {
    if (!starts_key(line[i]) || (i > 0 && inside_key(line[i - 1]))) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < line.size() && inside_key(line[end])) ++end;
    const std::string_view key = line.substr(i, end - i);
    i = end;
    size_t value_start = end;
    if (end < line.size() && line[end] == '=') {
      value_start = end + 1;
    } else if (end + 1 < line.size() && line[end] == ':' && line[end + 1] == ' ') {
      value_start = end + 1;
      while (value_start < line.size() && line[value_start] == ' ') ++value_start;
    } else {
      continue;
    }
    // from_chars takes no leading '+'.
    if (value_start < line.size() && line[value_start] == '+') ++value_start;
    double value = 0;
    const char* first = line.data() + value_start;
    const char* last = line.data() + line.size();
    const auto [stop, error] = std::from_chars(first, last, value);
    if (error != std::errc() || stop == first) continue;
    const size_t value_end = static_cast<size_t>(stop - line.data());
    i = value_end;
    if (value_end < line.size() && inside_word(line[value_end])) continue;  // 1e-3x, 10ms
    if (!std::isfinite(value)) continue;
    values.emplace_back(std::string(key), value);
  }
  return values;
}

MeasuredValues json_line_values(std::string_view line) {
  MeasuredValues values;
  rapidjson::Document document;
  document.Parse<rapidjson::kParseIterativeFlag>(line.data(), line.size());
  if (document.HasParseError() || !document.IsObject()) return values;
  for (const auto& member : document.GetObject()) {
    if (!member.value.IsNumber()) continue;
    const double value = member.value.GetDouble();
    if (!std::isfinite(value)) continue;
    values.emplace_back(std::string(member.name.GetString(), member.name.GetStringLength()), value);
  }
  return values;
}

RankedLine ranked_line(std::string_view line) {
  if (line.empty() || line[0] != '[') return {line, -1};
  // torchrun writes "[" ROLE LOCAL_RANK "]:" (its --role is "default" unless given).
  size_t digits = 1;
  while (digits < line.size() && (std::isalpha(static_cast<unsigned char>(line[digits])) ||
                                  line[digits] == '_' || line[digits] == '-')) {
    ++digits;
  }
  size_t end = digits;
  // At most 9 digits: any rank fits an int32_t.
  while (end < line.size() && end - digits < 9 &&
         std::isdigit(static_cast<unsigned char>(line[end]))) {
    ++end;
  }
  if (end == digits || line.substr(end, 2) != "]:") return {line, -1};
  int32_t rank = 0;
  std::from_chars(line.data() + digits, line.data() + end, rank);
  return {line.substr(end + 2), rank};
}

}  // namespace sortie::session
