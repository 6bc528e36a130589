// RapidJSON helpers of the kubernetes plugin: reading payloads with errors that name the document
// and member at fault, and building manifests as value trees.
#ifndef SORTIE_KUBERNETES_JSON_HPP
#define SORTIE_KUBERNETES_JSON_HPP

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "json_fields.hpp"

namespace sortie::kubernetes {

using Json = rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;

// Strict readers (find_member, string_member, ...), parse_object, string_value and
// to_json_text are those of every first-party plugin (plugins/common/json_fields.hpp).

// Lenient readers for API objects, whose shape the server owns: "" / nullopt when absent or of
// another type. `path` is dot-separated ("status.phase").
std::string text_at(const Json& object, std::string_view path);
std::optional<int64_t> int_at(const Json& object, std::string_view path);
const Json* value_at(const Json& object, std::string_view path);

// Builders.
// Sets object[key] = value, replacing an existing member.
void set_member(Json& object, std::string_view key, Json value, Allocator& allocator);
void set_string(Json& object, std::string_view key, std::string_view text, Allocator& allocator);
void push_string(Json& array, std::string_view text, Allocator& allocator);

// RFC 3339 ("2024-01-01T00:00:00.123Z", offsets allowed) to ns since the epoch; nullopt if not
// a timestamp. And back, with nanoseconds when they are not zero.
std::optional<int64_t> parse_rfc3339(std::string_view text);
std::string format_rfc3339(int64_t ns);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_JSON_HPP
