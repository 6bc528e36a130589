// File: sortie/json_nesting.hpp
//
// How deep JSON text nests, found without parsing it, so a reader can refuse text nested past
// limits::kJsonDepth before a recursive parser or tree walk overflows the stack on it.
//
// Standard C++17 only (rule ABI-9 of sdk/README.md).
#ifndef SORTIE_JSON_NESTING_HPP
#define SORTIE_JSON_NESTING_HPP

#include <cstddef>
#include <string_view>

namespace sortie {

// True when an array or object in `text` opens more than `max_depth` levels deep. Brackets
// inside strings do not count; text that is not JSON gives some answer and then fails to parse.
inline bool json_nesting_exceeds(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;  // the escaped character cannot end the string
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return true;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return false;
}

}  // namespace sortie

#endif  // SORTIE_JSON_NESTING_HPP
