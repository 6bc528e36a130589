#include "json_fields.hpp"

#include <rapidjson/prettywriter.h>

#include <sortie/plugin.hpp>

namespace sortie::plugins_common {
namespace {

[[noreturn]] void wrong_type(std::string_view what, std::string_view key, const char* expected) {
  throw Error::invalid_argument(std::string(what) + ": member '" + std::string(key) + "' must be " +
                                expected);
}

}  // namespace

const rapidjson::Value* find_member(const rapidjson::Value& object, std::string_view key) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(rapidjson::Value(
      rapidjson::StringRef(key.data(), static_cast<rapidjson::SizeType>(key.size()))));
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

std::string string_member(const rapidjson::Value& object, std::string_view key,
                          std::string_view what, std::string fallback) {
  const rapidjson::Value* value = find_member(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsString()) wrong_type(what, key, "a string");
  return std::string(value->GetString(), value->GetStringLength());
}

int64_t int_member(const rapidjson::Value& object, std::string_view key, std::string_view what,
                   int64_t fallback) {
  const rapidjson::Value* value = find_member(object, key);
  if (value == nullptr) return fallback;
  if (value->IsInt64()) return value->GetInt64();
  if (value->IsDouble() &&
      value->GetDouble() == static_cast<double>(static_cast<int64_t>(value->GetDouble()))) {
    return static_cast<int64_t>(value->GetDouble());
  }
  wrong_type(what, key, "an integer");
}

double number_member(const rapidjson::Value& object, std::string_view key, std::string_view what,
                     double fallback) {
  const rapidjson::Value* value = find_member(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsNumber()) wrong_type(what, key, "a number");
  return value->GetDouble();
}

bool bool_member(const rapidjson::Value& object, std::string_view key, std::string_view what,
                 bool fallback) {
  const rapidjson::Value* value = find_member(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsBool()) wrong_type(what, key, "true or false");
  return value->GetBool();
}

const rapidjson::Value* object_member(const rapidjson::Value& object, std::string_view key,
                                      std::string_view what) {
  const rapidjson::Value* value = find_member(object, key);
  if (value != nullptr && !value->IsObject()) wrong_type(what, key, "an object");
  return value;
}

const rapidjson::Value* array_member(const rapidjson::Value& object, std::string_view key,
                                     std::string_view what) {
  const rapidjson::Value* value = find_member(object, key);
  if (value != nullptr && !value->IsArray()) wrong_type(what, key, "an array");
  return value;
}

void write_string(JsonWriter& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

std::string quote(std::string_view text) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  write_string(writer, text);
  return std::string(buffer.GetString(), buffer.GetSize());
}

rapidjson::Value string_value(std::string_view text, rapidjson::Document::AllocatorType& alloc) {
  return rapidjson::Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
}

void add_member(rapidjson::Value& object, std::string_view key, rapidjson::Value value,
                rapidjson::Document::AllocatorType& alloc) {
  object.AddMember(string_value(key, alloc), value, alloc);
}

void add_string(rapidjson::Value& object, std::string_view key, std::string_view text,
                rapidjson::Document::AllocatorType& alloc) {
  add_member(object, key, string_value(text, alloc), alloc);
}

std::string to_json_text(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string to_pretty_json_text(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
  writer.SetIndent(' ', 2);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace sortie::plugins_common
