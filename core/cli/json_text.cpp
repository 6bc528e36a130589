#include "json_text.hpp"

#include <cstdio>

namespace sortie::cli {

void append_json_string(std::string& out, std::string_view value) {
  out += '"';
  for (const char c : value) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned char>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void JsonText::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) out_ += ',';
    has_items_.back() = true;
  }
}

JsonText& JsonText::begin_object() {
  before_value();
  out_ += '{';
  has_items_.push_back(false);
  return *this;
}

JsonText& JsonText::end_object() {
  out_ += '}';
  has_items_.pop_back();
  return *this;
}

JsonText& JsonText::begin_array() {
  before_value();
  out_ += '[';
  has_items_.push_back(false);
  return *this;
}

JsonText& JsonText::end_array() {
  out_ += ']';
  has_items_.pop_back();
  return *this;
}

JsonText& JsonText::key(std::string_view name) {
  before_value();
  append_json_string(out_, name);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonText& JsonText::string(std::string_view value) {
  before_value();
  append_json_string(out_, value);
  return *this;
}

JsonText& JsonText::number(int64_t value) {
  before_value();
  out_ += std::to_string(value);
  return *this;
}

JsonText& JsonText::number(double value) {
  before_value();
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  out_ += text;
  return *this;
}

JsonText& JsonText::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
  return *this;
}

JsonText& JsonText::null() {
  before_value();
  out_ += "null";
  return *this;
}

JsonText& JsonText::raw(std::string_view json) {
  before_value();
  out_ += json;
  return *this;
}

}  // namespace sortie::cli
