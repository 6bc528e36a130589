#include "json.hpp"

#include <rapidjson/error/en.h>

#include <sortie/plugin.hpp>

namespace sortie::docker {
namespace {

[[noreturn]] void wrong_type(std::string_view what, const char* key, const char* expected) {
  throw Error(Code::kInvalidArgument,
              std::string(what) + ": member '" + key + "' must be " + expected);
}

}  // namespace

rapidjson::Document parse_object(std::string_view text, std::string_view what) {
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  if (document.HasParseError()) {
    throw Error(Code::kInvalidArgument, std::string(what) + ": invalid JSON at offset " +
                                            std::to_string(document.GetErrorOffset()) + ": " +
                                            rapidjson::GetParseError_En(document.GetParseError()));
  }
  if (!document.IsObject()) {
    throw Error(Code::kInvalidArgument, std::string(what) + ": expected a JSON object");
  }
  return document;
}

const rapidjson::Value* find(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return nullptr;
  const auto it = object.FindMember(key);
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

std::string string_of(const rapidjson::Value& object, const char* key, std::string_view what,
                      std::string fallback) {
  const rapidjson::Value* value = find(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsString()) wrong_type(what, key, "a string");
  return std::string(value->GetString(), value->GetStringLength());
}

int64_t int_of(const rapidjson::Value& object, const char* key, std::string_view what,
               int64_t fallback) {
  const rapidjson::Value* value = find(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsInt64()) wrong_type(what, key, "an integer");
  return value->GetInt64();
}

double number_of(const rapidjson::Value& object, const char* key, std::string_view what,
                 double fallback) {
  const rapidjson::Value* value = find(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsNumber()) wrong_type(what, key, "a number");
  return value->GetDouble();
}

bool bool_of(const rapidjson::Value& object, const char* key, std::string_view what,
             bool fallback) {
  const rapidjson::Value* value = find(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsBool()) wrong_type(what, key, "true or false");
  return value->GetBool();
}

const rapidjson::Value* object_of(const rapidjson::Value& object, const char* key,
                                  std::string_view what) {
  const rapidjson::Value* value = find(object, key);
  if (value != nullptr && !value->IsObject()) wrong_type(what, key, "an object");
  return value;
}

const rapidjson::Value* array_of(const rapidjson::Value& object, const char* key,
                                 std::string_view what) {
  const rapidjson::Value* value = find(object, key);
  if (value != nullptr && !value->IsArray()) wrong_type(what, key, "an array");
  return value;
}

void write_string(JsonWriter& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

std::string to_text(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string quote(std::string_view text) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  write_string(writer, text);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace sortie::docker
