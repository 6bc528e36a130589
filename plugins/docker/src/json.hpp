// RapidJSON helpers of the Docker plugin. Every accessor names the document and member at fault,
// so a malformed payload or Engine answer reads as a precise error.
#ifndef SORTIE_DOCKER_JSON_HPP
#define SORTIE_DOCKER_JSON_HPP

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace sortie::docker {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Parses an object; throws INVALID_ARGUMENT naming `what` and the offset of the syntax error.
rapidjson::Document parse_object(std::string_view text, std::string_view what);

// The member `key`, or nullptr when absent or JSON null.
const rapidjson::Value* find(const rapidjson::Value& object, const char* key);

// Typed accessors: `fallback` when absent or null; INVALID_ARGUMENT naming `what` and `key` when
// present with another type.
std::string string_of(const rapidjson::Value& object, const char* key, std::string_view what,
                      std::string fallback = "");
int64_t int_of(const rapidjson::Value& object, const char* key, std::string_view what,
               int64_t fallback);
double number_of(const rapidjson::Value& object, const char* key, std::string_view what,
                 double fallback);
bool bool_of(const rapidjson::Value& object, const char* key, std::string_view what, bool fallback);
const rapidjson::Value* object_of(const rapidjson::Value& object, const char* key,
                                  std::string_view what);
const rapidjson::Value* array_of(const rapidjson::Value& object, const char* key,
                                 std::string_view what);

void write_string(JsonWriter& writer, std::string_view text);
std::string to_text(const rapidjson::Value& value);
// A JSON string literal for text, quotes included.
std::string quote(std::string_view text);

}  // namespace sortie::docker

#endif  // SORTIE_DOCKER_JSON_HPP
