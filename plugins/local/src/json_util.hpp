// Small RapidJSON helpers shared by the local plugin and its supervisor. Every accessor names the
// document and member at fault, so a malformed payload reads as a precise error.
#ifndef SORTIE_LOCAL_JSON_UTIL_HPP
#define SORTIE_LOCAL_JSON_UTIL_HPP

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace sortie::local {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Parses text; throws INVALID_ARGUMENT naming `what` and the offset of the syntax error.
rapidjson::Document parse_json(std::string_view text, std::string_view what);

// The member `key` of `object`, or nullptr when it is absent or JSON null.
const rapidjson::Value* find_member(const rapidjson::Value& object, const char* key);

// Typed accessors: return `fallback` when the member is absent or null; throw INVALID_ARGUMENT
// naming `what` and `key` when it has another type.
std::string string_member(const rapidjson::Value& object, const char* key, std::string_view what,
                          std::string fallback = "");
int64_t int_member(const rapidjson::Value& object, const char* key, std::string_view what,
                   int64_t fallback);
double number_member(const rapidjson::Value& object, const char* key, std::string_view what,
                     double fallback);
bool bool_member(const rapidjson::Value& object, const char* key, std::string_view what,
                 bool fallback);
// The member as an object or array; throws when present with another type, nullptr if absent.
const rapidjson::Value* object_member(const rapidjson::Value& object, const char* key,
                                      std::string_view what);
const rapidjson::Value* array_member(const rapidjson::Value& object, const char* key,
                                     std::string_view what);

void write_string(JsonWriter& writer, std::string_view text);
// Serialises a value back to compact JSON text.
std::string to_json_text(const rapidjson::Value& value);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_JSON_UTIL_HPP
