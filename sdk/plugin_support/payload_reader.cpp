#include "payload_reader.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <optional>
#include <sortie/json_nesting.hpp>
#include <sortie/limits.hpp>
#include <sortie/plugin.hpp>

namespace sortie::payload {

rapidjson::Document parse_object(std::string_view text, std::string_view what) {
  if (json_nesting_exceeds(text, limits::value(limits::kJsonDepth))) {
    throw Error::invalid_argument(
        limits::exceeded(std::string(what) + ": its JSON nesting", limits::kJsonDepth));
  }
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  if (document.HasParseError()) {
    throw Error::invalid_argument(std::string(what) + ": invalid JSON at offset " +
                                  std::to_string(document.GetErrorOffset()) + ": " +
                                  rapidjson::GetParseError_En(document.GetParseError()));
  }
  if (!document.IsObject()) {
    throw Error::invalid_argument(std::string(what) + ": expected a JSON object");
  }
  return document;
}

void check_schema(const Json& object, std::string_view expected, const std::string& prefix) {
  const Json* schema = find(object, "schema");
  if (schema == nullptr) return;
  if (!schema->IsString() || std::string_view(schema->GetString()) != expected) {
    fail(member_path(prefix, "schema"), "expected \"" + std::string(expected) + "\", got " +
                                            describe(*schema) +
                                            " (a payload of another kind or major version)");
  }
}

void fail(const std::string& path, const std::string& message) {
  throw Error::invalid_argument(path + ": " + message);
}

std::string describe(const Json& value) {
  // Long texts are cut: the path already says where the value is.
  constexpr size_t kShown = 60;
  if (value.IsObject()) return "an object";
  if (value.IsArray()) return "an array";
  const std::string text = to_text(value);
  return text.size() <= kShown ? text : text.substr(0, kShown) + "...";
}

void fail_type(const std::string& path, std::string_view expected, const Json& got) {
  fail(path, "expected " + std::string(expected) + ", got " + describe(got));
}

namespace {

// `number` as an int64 when it is one exactly.
std::optional<int64_t> exact_int64(double number) {
  // int64 holds [-2^63, 2^63), both bounds exact doubles. Casting anything outside (8.1e56,
  // NaN, infinities) is undefined behaviour, so the range is checked first.
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (!(number >= -kTwoTo63 && number < kTwoTo63) || number != std::trunc(number)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(number);
}

}  // namespace

int64_t int_value(const Json& value, const std::string& path) {
  if (value.IsInt64()) return value.GetInt64();
  if (value.IsDouble()) {
    if (const auto integer = exact_int64(value.GetDouble())) return *integer;
  }
  fail_type(path, "an integer", value);
}

std::string member_path(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

const Json* find(const Json& object, const char* key) {
  const auto it = object.FindMember(key);
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

std::string read_string(const Json& object, const char* key, const std::string& prefix,
                        std::string fallback) {
  const Json* value = find(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsString()) fail_type(member_path(prefix, key), "a string", *value);
  return std::string(value->GetString(), value->GetStringLength());
}

int64_t read_int(const Json& object, const char* key, const std::string& prefix, int64_t fallback) {
  const Json* value = find(object, key);
  if (value == nullptr) return fallback;
  return int_value(*value, member_path(prefix, key));
}

double read_number(const Json& object, const char* key, const std::string& prefix,
                   double fallback) {
  const Json* value = find(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsNumber()) fail_type(member_path(prefix, key), "a number", *value);
  return value->GetDouble();
}

bool read_bool(const Json& object, const char* key, const std::string& prefix, bool fallback) {
  const Json* value = find(object, key);
  if (value == nullptr) return fallback;
  if (!value->IsBool()) fail_type(member_path(prefix, key), "true or false", *value);
  return value->GetBool();
}

const Json* read_object(const Json& object, const char* key, const std::string& prefix) {
  const Json* value = find(object, key);
  if (value != nullptr && !value->IsObject())
    fail_type(member_path(prefix, key), "an object", *value);
  return value;
}

const Json* read_array(const Json& object, const char* key, const std::string& prefix) {
  const Json* value = find(object, key);
  if (value != nullptr && !value->IsArray())
    fail_type(member_path(prefix, key), "an array", *value);
  return value;
}

std::vector<std::string> read_strings(const Json& object, const char* key,
                                      const std::string& prefix) {
  std::vector<std::string> out;
  const Json* list = read_array(object, key, prefix);
  if (list == nullptr) return out;
  for (const Json& item : list->GetArray()) {
    if (!item.IsString()) {
      fail_type(member_path(prefix, key) + "[" + std::to_string(out.size()) + "]", "a string",
                item);
    }
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> read_string_map(const Json& object,
                                                                 const char* key,
                                                                 const std::string& prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  const Json* map = read_object(object, key, prefix);
  if (map == nullptr) return out;
  for (const auto& entry : map->GetObject()) {
    std::string name(entry.name.GetString(), entry.name.GetStringLength());
    if (!entry.value.IsString()) {
      fail_type(member_path(prefix, key) + "." + name, "a string", entry.value);
    }
    out.emplace_back(std::move(name),
                     std::string(entry.value.GetString(), entry.value.GetStringLength()));
  }
  return out;
}

std::string to_text(const Json& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace sortie::payload
