// File: tests/cli/cli_json_support.hpp
//
// Reading what `sortie ... --json` printed. Failures throw, which GoogleTest reports as a failed
// test with the message (and stops it before it reads a member that is not there).
#ifndef SORTIE_TESTS_CLI_JSON_SUPPORT_HPP
#define SORTIE_TESTS_CLI_JSON_SUPPORT_HPP

#include <rapidjson/document.h>

#include <string>

namespace sortie::testing {

// `text` as exactly one JSON object (nothing after it but whitespace) whose "schema" is `schema`.
rapidjson::Document parse_document(const std::string& text, const std::string& schema);

// The element of array `items` whose "name" member is `name`.
const rapidjson::Value& element_named(const rapidjson::Value& items, const std::string& name);

}  // namespace sortie::testing

#endif  // SORTIE_TESTS_CLI_JSON_SUPPORT_HPP
