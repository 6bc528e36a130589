// RapidJSON helpers shared by the first-party plugins (local, docker, kubernetes, vertex). Every
// accessor names the document and member at fault, so a malformed payload or API answer reads as a
// precise error. Not part of the SDK: third-party plugins choose their own JSON library.
#ifndef SORTIE_PLUGINS_COMMON_JSON_FIELDS_HPP
#define SORTIE_PLUGINS_COMMON_JSON_FIELDS_HPP

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "payload_reader.hpp"

namespace sortie::plugins_common {

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Parses text into a JSON object; throws INVALID_ARGUMENT naming `what` and the offset of a
// syntax error. The SDK payload readers' own, so every payload parses alike.
using payload::parse_object;

// The member `key` of `object`, or nullptr when it is absent or JSON null.
const rapidjson::Value* find_member(const rapidjson::Value& object, std::string_view key);

// Typed accessors: `fallback` when the member is absent or null; INVALID_ARGUMENT naming `what`
// and `key` when it has another type. An integer may be written as an integral double (2.0).
std::string string_member(const rapidjson::Value& object, std::string_view key,
                          std::string_view what, std::string fallback = "");
int64_t int_member(const rapidjson::Value& object, std::string_view key, std::string_view what,
                   int64_t fallback);
double number_member(const rapidjson::Value& object, std::string_view key, std::string_view what,
                     double fallback);
bool bool_member(const rapidjson::Value& object, std::string_view key, std::string_view what,
                 bool fallback);
// The member as an object or array; throws when present with another type, nullptr if absent.
const rapidjson::Value* object_member(const rapidjson::Value& object, std::string_view key,
                                      std::string_view what);
const rapidjson::Value* array_member(const rapidjson::Value& object, std::string_view key,
                                     std::string_view what);

void write_string(JsonWriter& writer, std::string_view text);
// `text` as a JSON string literal, quotes included.
std::string quote(std::string_view text);

// A JSON string value holding a copy of text.
rapidjson::Value string_value(std::string_view text, rapidjson::Document::AllocatorType& alloc);
// Adds member key: value (a copy of key is made).
void add_member(rapidjson::Value& object, std::string_view key, rapidjson::Value value,
                rapidjson::Document::AllocatorType& alloc);
void add_string(rapidjson::Value& object, std::string_view key, std::string_view text,
                rapidjson::Document::AllocatorType& alloc);

// Compact and two-space-indented serialisations.
std::string to_json_text(const rapidjson::Value& value);
std::string to_pretty_json_text(const rapidjson::Value& value);

}  // namespace sortie::plugins_common

#endif  // SORTIE_PLUGINS_COMMON_JSON_FIELDS_HPP
