#include "durations.hpp"

#include <sortie/session/session.hpp>

namespace sortie::cli {

std::string coarse_duration(int64_t span_ns) {
  const int64_t s = span_ns / 1'000'000'000;
  if (s < 120) return std::to_string(s) + "s";
  if (s < 7200) return std::to_string(s / 60) + "m";
  if (s < 172800) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

std::string age(int64_t since_ns) {
  if (since_ns == 0) return "-";
  return coarse_duration(session::now_ns() - since_ns) + " ago";
}

}  // namespace sortie::cli
