#include "yaml_fields.hpp"

#include <sortie/model/error.hpp>

#include "bounded_yaml.hpp"
#include "model_suggest.hpp"

namespace sortie::model {

TextMark mark_of(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return TextMark{mark.line, mark.column};
}

YAML::Node load_yaml_document(const std::string& text, const std::string& origin) {
  try {
    return load_bounded_yaml(text, origin);
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

void fail_unknown_key(const std::string& origin, TextMark mark, const std::string& path,
                      const std::string& key, const std::vector<std::string>& known) {
  fail_field(
      origin, mark, join_field(path, key),
      "unknown key" + did_you_mean(key, known) + "; the keys here are " + quoted_list(known));
}

void fail_repeated_key(const std::string& origin, TextMark mark, const std::string& path,
                       const std::string& key) {
  fail_field(origin, mark, join_field(path, key), "the key appears twice; keep one");
}

}  // namespace sortie::model
