// File: core/cli/json_text.hpp
//
// A small streaming JSON writer for the CLI's payloads and --json output. It keeps RapidJSON
// out of every CLI translation unit that only needs to write.
#ifndef SORTIE_CLI_JSON_TEXT_HPP
#define SORTIE_CLI_JSON_TEXT_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::cli {

class JsonText {
 public:
  JsonText& begin_object();
  JsonText& end_object();
  JsonText& begin_array();
  JsonText& end_array();
  JsonText& key(std::string_view name);
  JsonText& string(std::string_view value);
  JsonText& number(int64_t value);
  JsonText& number(double value);
  JsonText& boolean(bool value);
  JsonText& null();
  // Embeds already-serialized JSON as the next value.
  JsonText& raw(std::string_view json);
  const std::string& str() const { return out_; }

 private:
  void before_value();
  std::string out_;
  std::vector<bool> has_items_;  // one per open container
  bool after_key_ = false;
};

// Appends `value` to `out` as a quoted JSON string.
void append_json_string(std::string& out, std::string_view value);

}  // namespace sortie::cli

#endif  // SORTIE_CLI_JSON_TEXT_HPP
