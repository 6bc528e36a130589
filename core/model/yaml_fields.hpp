// File: core/model/yaml_fields.hpp (private)
//
// The reading vocabulary shared by the files people write (app specs, experiment files): the
// one YAML document loader, field paths, and errors that name where the field is written:
// "exp.yaml:2:53: executables.t.env_vars: expected a mapping of names to strings, got \"y\"".
#ifndef SORTIE_MODEL_YAML_FIELDS_HPP
#define SORTIE_MODEL_YAML_FIELDS_HPP

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <string>
#include <vector>

namespace sortie::model {

// Where a node starts in its file, 0-based as yaml-cpp counts; -1 when unknown.
struct TextMark {
  int line = -1;
  int column = -1;
};

TextMark mark_of(const YAML::Node& node);

// Parses a YAML (or JSON) document; a syntax error reads
// "ORIGIN:LINE:COL: invalid YAML/JSON: REASON". Every file kind loads its documents here, so
// the limits on documents (bounded_yaml.hpp, docs/limits.md) apply to all of them at once.
YAML::Node load_yaml_document(const std::string& text, const std::string& origin);

// "roles" + "args" -> "roles.args"; "" + "title" -> "title".
std::string join_field(const std::string& path, const std::string& key);
// "roles", 2 -> "roles[2]".
std::string indexed_field(const std::string& path, size_t index);

// "ORIGIN:LINE:COL: FIELD" ("ORIGIN: FIELD" without a known line, "ORIGIN:LINE:COL" without a
// field): the context other checks put before ": what is wrong".
std::string field_location(const std::string& origin, TextMark mark, const std::string& field);

// Throws Error(INVALID_ARGUMENT) "field_location(...): message".
[[noreturn]] void fail_field(const std::string& origin, TextMark mark, const std::string& field,
                             const std::string& message);

// "...: expected EXPECTED, got GOT", GOT describing what is written ("a list", "\"5\"").
[[noreturn]] void fail_expected_field(const std::string& origin, TextMark mark,
                                      const std::string& field, const std::string& expected,
                                      const std::string& got);

// "...: PATH.KEY: unknown key (did you mean 'k'?); the keys here are 'a', 'b'": a typo must
// not be silently dropped.
[[noreturn]] void fail_unknown_key(const std::string& origin, TextMark mark,
                                   const std::string& path, const std::string& key,
                                   const std::vector<std::string>& known);

// "...: PATH.KEY: the key appears twice; keep one".
[[noreturn]] void fail_repeated_key(const std::string& origin, TextMark mark,
                                    const std::string& path, const std::string& key);

// What common fields expect, worded alike in every file kind.
inline constexpr const char* kExpectedString = "a string";
inline constexpr const char* kExpectedStringList = "a list of strings";
inline constexpr const char* kExpectedStringMap = "a mapping of names to strings";
inline constexpr const char* kExpectedBoolean = "true or false";

}  // namespace sortie::model

#endif  // SORTIE_MODEL_YAML_FIELDS_HPP
