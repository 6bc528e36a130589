#include "measurement_text.hpp"

#include <charconv>
#include <cstdio>

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

}  // namespace sortie::cli
