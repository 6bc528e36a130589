#include "printable.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <utility>

namespace sortie::cli {

namespace {

// The length of the well-formed UTF-8 sequence at the start of `text` and its code point, or
// length 0 when it is not one (a stray byte, an overlong or truncated sequence, a surrogate).
std::pair<size_t, char32_t> decode(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(0);
  size_t length = 0;
  char32_t least = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    least = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    least = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    least = 0x10000;
  } else {
    return {0, 0};
  }
  char32_t point = lead & (0x7F >> length);
  if (text.size() < length) return {0, 0};
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return {0, 0};
    point = (point << 6) | (byte(i) & 0x3F);
  }
  if (point < least || point > 0x10FFFF || (point >= 0xD800 && point <= 0xDFFF)) return {0, 0};
  return {length, point};
}

bool is_escaped(char32_t point) {
  return (point >= 0x80 && point <= 0x9F) || (point >= 0x202A && point <= 0x202E) ||
         (point >= 0x2066 && point <= 0x2069);
}

}  // namespace

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7F) {
        out += fmt::format("\\x{:02x}", c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const auto [length, point] = decode(text.substr(i));
    if (length == 0) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else if (is_escaped(point)) {
      out += fmt::format("\\u{:04x}", static_cast<uint32_t>(point));
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace sortie::cli
