#include "json_values.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <sortie/model/error.hpp>

namespace sortie::model::json {

Where Where::operator/(std::string_view member) const {
  return {origin, path.empty() ? std::string(member) : path + "." + std::string(member)};
}

Where Where::operator[](size_t index) const {
  return {origin, path + "[" + std::to_string(index) + "]"};
}

std::string Where::prefix() const {
  return path.empty() ? origin + ": " : origin + ": " + path + ": ";
}

rapidjson::Document parse(std::string_view text, std::string_view origin) {
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  if (document.HasParseError()) {
    throw Error::invalid_argument(std::string(origin) + ": invalid JSON at offset " +
                                  std::to_string(document.GetErrorOffset()) + ": " +
                                  rapidjson::GetParseError_En(document.GetParseError()));
  }
  return document;
}

std::string compact(const Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return {buffer.GetString(), buffer.GetSize()};
}

std::string describe(const Value& value) {
  if (value.IsObject()) return "an object";
  if (value.IsArray()) return "a list";
  std::string text = compact(value);
  constexpr size_t kMaxShown = 40;
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return text;
}

void fail_expected(const Where& where, std::string_view expected, const Value& got) {
  throw Error::invalid_argument(where.prefix() + "expected " + std::string(expected) + ", got " +
                                describe(got));
}

const Value& as_object(const Value& value, const Where& where) {
  if (!value.IsObject()) fail_expected(where, "an object", value);
  return value;
}

const Value& as_array(const Value& value, const Where& where) {
  if (!value.IsArray()) fail_expected(where, "a list", value);
  return value;
}

const Value* find(const Value& object, const char* name) {
  const auto it = object.FindMember(name);
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

std::string as_string(const Value& value, const Where& where) {
  if (!value.IsString()) fail_expected(where, "a string", value);
  return {value.GetString(), value.GetStringLength()};
}

bool as_bool(const Value& value, const Where& where) {
  if (!value.IsBool()) fail_expected(where, "true or false", value);
  return value.GetBool();
}

double as_number(const Value& value, const Where& where) {
  if (!value.IsNumber()) fail_expected(where, "a number", value);
  return value.GetDouble();
}

std::vector<std::string> as_string_list(const Value& value, const Where& where) {
  if (!value.IsArray()) fail_expected(where, "a list of strings", value);
  std::vector<std::string> items;
  for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
    items.push_back(as_string(value[i], where[i]));
  }
  return items;
}

std::map<std::string, std::string> as_string_map(const Value& value, const Where& where) {
  if (!value.IsObject()) fail_expected(where, "an object of strings", value);
  std::map<std::string, std::string> items;
  for (const auto& member : value.GetObject()) {
    const std::string key(member.name.GetString(), member.name.GetStringLength());
    items[key] = as_string(member.value, where / key);
  }
  return items;
}

void check_schema(const Value& object, const Where& where, std::string_view expected) {
  const Value* schema = find(object, "schema");
  if (schema == nullptr) return;
  if (!schema->IsString() || std::string_view(schema->GetString()) != expected) {
    throw Error::invalid_argument((where / "schema").prefix() + "expected \"" +
                                  std::string(expected) + "\", got " + describe(*schema) +
                                  " (a payload of another kind or major version)");
  }
}

}  // namespace sortie::model::json
