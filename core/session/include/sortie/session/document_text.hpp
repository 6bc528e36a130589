// File: core/session/include/sortie/session/document_text.hpp
//
// JSON values as text for people and pipes: pretty JSON, and YAML that reads back as exactly the
// same values (a string that a YAML reader would take for a number, a boolean, null or a date,
// in YAML 1.1 or 1.2, such as "1", "true", "yes", "on", "null", "1e3", "0x10", "2024-01-01" or
// "", is double-quoted, as is one with a control character or starting with "---").
#ifndef SORTIE_SESSION_DOCUMENT_TEXT_HPP
#define SORTIE_SESSION_DOCUMENT_TEXT_HPP

#include <rapidjson/document.h>

#include <string>
#include <string_view>
#include <vector>

namespace sortie::session {

// JSON indented by two spaces, without a final newline.
std::string pretty_json(const rapidjson::Value& value);

// True when `text`, written as a plain (unquoted) YAML scalar, would not read back as a string.
bool plain_scalar_changes_type(std::string_view text);

// A YAML stream with one document (`---`) per value.
std::string yaml_stream(const std::vector<const rapidjson::Value*>& documents);

}  // namespace sortie::session

#endif  // SORTIE_SESSION_DOCUMENT_TEXT_HPP
