#include "time_arg.hpp"

#include <cctype>
#include <ctime>
#include <sortie/model/error.hpp>

namespace sortie::cli {

namespace {

constexpr int64_t kNsPerSecond = 1'000'000'000;

bool all_digits(const std::string& text, size_t begin, size_t end) {
  if (begin >= end) return false;
  for (size_t i = begin; i < end; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
  }
  return true;
}

}  // namespace

int64_t parse_time_arg(const std::string& text, const char* option, int64_t now_ns) {
  if (all_digits(text, 0, text.size())) return std::stoll(text) * kNsPerSecond;
  if (text.size() >= 2 && all_digits(text, 0, text.size() - 1)) {
    const int64_t amount = std::stoll(text.substr(0, text.size() - 1));
    int64_t unit = 0;
    switch (text.back()) {
      case 's':
        unit = 1;
        break;
      case 'm':
        unit = 60;
        break;
      case 'h':
        unit = 3600;
        break;
      case 'd':
        unit = 86400;
        break;
      default:
        break;
    }
    if (unit != 0) return now_ns - amount * unit * kNsPerSecond;
  }
  std::tm parts{};
  const bool utc = !text.empty() && text.back() == 'Z';
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &parts);
  if (end != nullptr && (*end == '\0' || (utc && end[0] == 'Z' && end[1] == '\0'))) {
    parts.tm_isdst = -1;
    const std::time_t seconds = utc ? timegm(&parts) : std::mktime(&parts);
    return static_cast<int64_t>(seconds) * kNsPerSecond;
  }
  throw Error::invalid_argument(
      std::string(option) + " '" + text +
      "': expected Unix seconds, an ISO 8601 time (2026-11-21T23:00:00[Z]) or a "
      "duration ago (90s, 15m, 2h, 1d)");
}

}  // namespace sortie::cli
