// File: core/plugin_host/plugin_wire.cpp
#include "plugin_wire.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <sortie/json_nesting.hpp>
#include <sortie/limits.hpp>
#include <stdexcept>

namespace sortie::plugin_host::detail {
namespace {

rapidjson::SizeType json_size(std::string_view text) {
  return static_cast<rapidjson::SizeType>(text.size());
}

}  // namespace

WireObject& WireObject::string(std::string_view key, std::string_view value) {
  members_.push_back({std::string(key), Kind::kString, std::string(value)});
  return *this;
}

WireObject& WireObject::number(std::string_view key, int64_t value) {
  members_.push_back({std::string(key), Kind::kNumber, {}, value});
  return *this;
}

WireObject& WireObject::raw(std::string_view key, std::string_view json) {
  members_.push_back({std::string(key), Kind::kRaw, std::string(json)});
  return *this;
}

std::string WireObject::str() const {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  for (const Member& member : members_) {
    writer.Key(member.key.data(), json_size(member.key));
    switch (member.kind) {
      case Kind::kString:
        writer.String(member.text.data(), json_size(member.text));
        break;
      case Kind::kNumber:
        writer.Int64(member.number);
        break;
      case Kind::kRaw:
        writer.RawValue(member.text.data(), member.text.size(), rapidjson::kObjectType);
        break;
    }
  }
  writer.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string wire_array(const std::vector<std::string>& items) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartArray();
  for (const std::string& item : items) {
    writer.RawValue(item.data(), item.size(), rapidjson::kObjectType);
  }
  writer.EndArray();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string wire_strings(const std::vector<std::string_view>& texts) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartArray();
  for (const std::string_view text : texts) writer.String(text.data(), json_size(text));
  writer.EndArray();
  return {buffer.GetString(), buffer.GetSize()};
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

bool parse_wire_reply(const std::string& message, rapidjson::Document& document) {
  if (json_nesting_exceeds(message, limits::value(limits::kJsonDepth))) return false;
  document.Parse(message.c_str(), message.size());
  if (document.HasParseError() || !document.IsObject()) return false;
  const auto status = document.FindMember("status");
  return status != document.MemberEnd() && status->value.IsInt();
}

}  // namespace sortie::plugin_host::detail
