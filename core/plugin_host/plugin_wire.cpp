// File: core/plugin_host/plugin_wire.cpp
#include "plugin_wire.hpp"

#include <stdexcept>

namespace sortie::core::detail {
namespace {

void append_json_string(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (byte < 0x20) {
      out += "\\u00";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xF]);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

}  // namespace

void WireObject::key(std::string_view key) {
  if (text_.size() > 1) text_.push_back(',');
  append_json_string(text_, key);
  text_.push_back(':');
}

WireObject& WireObject::string(std::string_view key, std::string_view value) {
  this->key(key);
  append_json_string(text_, value);
  return *this;
}

WireObject& WireObject::number(std::string_view key, int64_t value) {
  this->key(key);
  text_ += std::to_string(value);
  return *this;
}

WireObject& WireObject::raw(std::string_view key, std::string_view json) {
  this->key(key);
  text_.append(json);
  return *this;
}

std::string wire_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) {
    if (out.size() > 1) out.push_back(',');
    out += item;
  }
  return out + "]";
}

std::string wire_frame(std::string_view json) {
  if (json.size() > kMaxWireMessageBytes) {
    throw std::length_error("a message of " + std::to_string(json.size()) +
                            " bytes exceeds the plugin channel's limit");
  }
  const auto size = static_cast<uint32_t>(json.size());
  std::string framed;
  framed.reserve(4 + json.size());
  for (int shift = 0; shift < 32; shift += 8) framed.push_back(static_cast<char>(size >> shift));
  framed.append(json);
  return framed;
}

std::optional<std::string> take_wire_message(std::string& buffer) {
  if (buffer.size() < 4) return std::nullopt;
  uint32_t size = 0;
  for (int i = 0; i < 4; ++i) size |= uint32_t{static_cast<unsigned char>(buffer[i])} << (8 * i);
  if (size > kMaxWireMessageBytes) {
    throw std::length_error("a message announced as " + std::to_string(size) +
                            " bytes exceeds the plugin channel's limit");
  }
  if (buffer.size() < 4 + size_t{size}) return std::nullopt;
  std::string message = buffer.substr(4, size);
  buffer.erase(0, 4 + size_t{size});
  return message;
}

}  // namespace sortie::core::detail
