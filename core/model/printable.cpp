#include <cstdint>
#include <cstdio>
#include <sortie/model/printable.hpp>
#include <utility>

namespace sortie::model {

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

void append_byte_escape(std::string& out, uint8_t byte) {
  char escape[16];
  std::snprintf(escape, sizeof escape, "\\x%02x", byte);
  out += escape;
}

void append_code_point_escape(std::string& out, char32_t point) {
  char escape[16];
  std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(point));
  out += escape;
}

std::string escaped(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<uint8_t>(text[i]);
    if (c < 0x80) {
      const bool kept_break = keep_line_breaks && (c == '\n' || c == '\t');
      if ((c < 0x20 || c == 0x7F) && !kept_break) {
        append_byte_escape(out, c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const auto [length, point] = decode(text.substr(i));
    if (length == 0) {
      append_byte_escape(out, c);
      ++i;
    } else if (is_escaped(point)) {
      append_code_point_escape(out, point);
      i += length;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

}  // namespace

std::string printable(std::string_view text) { return escaped(text, false); }

std::string printable_message(std::string_view text) { return escaped(text, true); }

}  // namespace sortie::model
