// File: core/session/include/sortie/session/json_text.hpp
//
// A streaming JSON writer for the CLI's payloads and --json output: RapidJSON's Writer behind a
// chaining interface, which keeps RapidJSON's headers out of every CLI translation unit that only
// needs to write.
#ifndef SORTIE_SESSION_JSON_TEXT_HPP
#define SORTIE_SESSION_JSON_TEXT_HPP

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace sortie::session {

class JsonText {
 public:
  JsonText();
  ~JsonText();
  JsonText(JsonText&&) noexcept;
  JsonText& operator=(JsonText&&) noexcept;

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
  // null for an empty text (a member that is always present, null when it does not apply).
  JsonText& string_or_null(std::string_view value);
  JsonText& raw_or_null(std::string_view json);
  const std::string& str() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sortie::session

#endif  // SORTIE_SESSION_JSON_TEXT_HPP
