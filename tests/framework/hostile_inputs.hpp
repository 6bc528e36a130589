// File: tests/framework/hostile_inputs.hpp
//
// Small inputs that cost a naive reader unbounded memory, time or stack (docs/limits.md).
#ifndef SORTIE_TESTS_FRAMEWORK_HOSTILE_INPUTS_HPP
#define SORTIE_TESTS_FRAMEWORK_HOSTILE_INPUTS_HPP

#include <cstddef>
#include <string>

namespace sortie::testing {

// YAML's "billion laughs" (396 bytes): nine anchors, each a list of nine aliases of the one
// before, so a reader that walks every element walks 9^9 of them.
inline std::string yaml_alias_bomb() {
  std::string text = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char level = 'b'; level <= 'i'; ++level) {
    text += std::string(1, level) + ": &" + level + " [";
    for (int i = 0; i < 9; ++i) text += std::string(i ? ", *" : "*") + static_cast<char>(level - 1);
    text += "]\n";
  }
  return text;
}

// JSON arrays nested `depth` deep: "[[...]]".
inline std::string nested_json_arrays(size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

// JSON objects nested `depth` deep: {"a":{"a":...1}}.
inline std::string nested_json_objects(size_t depth) {
  std::string text;
  for (size_t i = 0; i < depth; ++i) text += "{\"a\":";
  return text + "1" + std::string(depth, '}');
}

}  // namespace sortie::testing

#endif  // SORTIE_TESTS_FRAMEWORK_HOSTILE_INPUTS_HPP
