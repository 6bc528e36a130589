#include "base64.hpp"

#include <cstdint>

namespace sortie::plugins_common {
namespace {

int sextet_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

bool is_whitespace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

std::optional<std::string> base64_decode(std::string_view text, Base64Reading reading) {
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  size_t padding = 0;
  for (const char c : text) {
    if (reading.skip_whitespace && is_whitespace(c)) continue;
    if (c == '=') {
      if (reading.stop_at_padding) return out;
      ++padding;
      continue;
    }
    const int value = sextet_of(c);
    if (value < 0 || padding > 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  if (!reading.stop_at_padding && (padding > 2 || bits >= 6)) return std::nullopt;
  return out;
}

}  // namespace sortie::plugins_common
