// RapidJSON reading for the payload readers of Sortie::plugin_support. Private to the library:
// no public header includes it (ABI-9). Every error names the field path being read.
#ifndef SORTIE_PLUGIN_SUPPORT_PAYLOAD_READER_HPP
#define SORTIE_PLUGIN_SUPPORT_PAYLOAD_READER_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sortie::payload {

using Json = rapidjson::Value;

// Parses JSON text that must be an object; errors name `what` (the schema).
rapidjson::Document parse_object(std::string_view text, std::string_view what);

// A "schema" member, when present, must name `expected`: a payload of another kind or major
// version is refused rather than misread. `prefix` is the object's own path ("" at the root).
void check_schema(const Json& object, std::string_view expected, const std::string& prefix = "");

// INVALID_ARGUMENT "<path>: <message>".
[[noreturn]] void fail(const std::string& path, const std::string& message);

// What was written, for "got ...": a scalar's JSON text (shortened), "an object" or "an array".
std::string describe(const Json& value);

// INVALID_ARGUMENT "<path>: expected <expected>, got <describe(got)>", as the host words its
// files (docs/specs.md).
[[noreturn]] void fail_type(const std::string& path, std::string_view expected, const Json& got);

// An integer value; integral doubles (2.0) count, as some writers spell integers so. Any other
// number (1.5, 8.1e56) is refused as "expected an integer", never cast.
int64_t int_value(const Json& value, const std::string& path);

// "<prefix>.<key>", or key alone at the root.
std::string member_path(const std::string& prefix, std::string_view key);

// The member, or nullptr when absent or null.
const Json* find(const Json& object, const char* key);

// Typed members: `fallback` when absent or null, an error naming the path otherwise.
std::string read_string(const Json& object, const char* key, const std::string& prefix,
                        std::string fallback = "");
int64_t read_int(const Json& object, const char* key, const std::string& prefix, int64_t fallback);
double read_number(const Json& object, const char* key, const std::string& prefix, double fallback);
bool read_bool(const Json& object, const char* key, const std::string& prefix, bool fallback);
const Json* read_object(const Json& object, const char* key, const std::string& prefix);
const Json* read_array(const Json& object, const char* key, const std::string& prefix);
std::vector<std::string> read_strings(const Json& object, const char* key,
                                      const std::string& prefix);
std::vector<std::pair<std::string, std::string>> read_string_map(const Json& object,
                                                                 const char* key,
                                                                 const std::string& prefix);

std::string to_text(const Json& value);

}  // namespace sortie::payload

#endif  // SORTIE_PLUGIN_SUPPORT_PAYLOAD_READER_HPP
