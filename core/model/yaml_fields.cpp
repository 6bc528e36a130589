#include "yaml_fields.hpp"

#include <sortie/core/error.hpp>

namespace sortie::core {

TextMark mark_of(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return TextMark{mark.line, mark.column};
}

YAML::Node load_yaml_document(const std::string& text, const std::string& origin) {
  try {
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    fail_field(origin, TextMark{e.mark.line, e.mark.column}, "", "invalid YAML/JSON: " + e.msg);
  }
}

std::string join_field(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string indexed_field(const std::string& path, size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

std::string field_location(const std::string& origin, TextMark mark, const std::string& field) {
  std::string text = origin;
  if (mark.line >= 0) {
    text += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }
  return field.empty() ? text : text + ": " + field;
}

void fail_field(const std::string& origin, TextMark mark, const std::string& field,
                const std::string& message) {
  throw Error::invalid_argument(field_location(origin, mark, field) + ": " + message);
}

void fail_expected_field(const std::string& origin, TextMark mark, const std::string& field,
                         const std::string& expected, const std::string& got) {
  fail_field(origin, mark, field, "expected " + expected + ", got " + got);
}

}  // namespace sortie::core
