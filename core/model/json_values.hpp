// File: core/model/json_values.hpp (private)
//
// Typed reads of RapidJSON values that fail with "ORIGIN: PATH: expected X, got Y", so every JSON
// reader of the model reports the offending member the same way.
#ifndef SORTIE_MODEL_JSON_VALUES_HPP
#define SORTIE_MODEL_JSON_VALUES_HPP

#include <rapidjson/document.h>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::model::json {

using Value = rapidjson::Value;

// Where a value sits: the document's origin and the member path ("roles[1].num_replicas").
struct Where {
  std::string origin;
  std::string path;
  Where operator/(std::string_view member) const;
  Where operator[](size_t index) const;
  std::string prefix() const;  // "ORIGIN: PATH: " (or "ORIGIN: " at the top)
};

// Parses one JSON document; throws Error "ORIGIN: invalid JSON at offset N: REASON".
rapidjson::Document parse(std::string_view text, std::string_view origin);

// Compact JSON text of a value.
std::string compact(const Value& value);

// A short rendering of a value for "got ..." ("\"two\"", "3", "null", "an object").
std::string describe(const Value& value);

[[noreturn]] void fail_expected(const Where& where, std::string_view expected, const Value& got);

const Value& as_object(const Value& value, const Where& where);
const Value& as_array(const Value& value, const Where& where);
// The member, or nullptr when absent or null.
const Value* find(const Value& object, const char* name);

std::string as_string(const Value& value, const Where& where);
bool as_bool(const Value& value, const Where& where);
double as_number(const Value& value, const Where& where);
std::vector<std::string> as_string_list(const Value& value, const Where& where);
std::map<std::string, std::string> as_string_map(const Value& value, const Where& where);

// Refuses a "schema" member other than `expected`; an absent one is accepted.
void check_schema(const Value& object, const Where& where, std::string_view expected);

}  // namespace sortie::model::json

#endif  // SORTIE_MODEL_JSON_VALUES_HPP
