// RapidJSON writing for the payload writers of Sortie::plugin_support. Private to the library.
#ifndef SORTIE_PLUGIN_SUPPORT_PAYLOAD_WRITER_HPP
#define SORTIE_PLUGIN_SUPPORT_PAYLOAD_WRITER_HPP

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sortie::payload {

// A compact JSON writer that keeps its text.
class PayloadWriter {
 public:
  PayloadWriter() : writer_(buffer_) {}

  rapidjson::Writer<rapidjson::StringBuffer>& json() { return writer_; }
  void key(std::string_view name);
  void string(std::string_view text);
  void member(std::string_view name, std::string_view text);
  void member(std::string_view name, int64_t number);
  // A whole number as an integer ("cpu": 2), as people write it.
  void number(double value);
  // null when absent.
  void member(std::string_view name, const std::optional<int64_t>& number);
  // `json` is inserted as it is.
  void raw_member(std::string_view name, std::string_view json);
  // An object of members whose values are JSON texts, inserted as they are (metadata).
  void raw_object(std::string_view name,
                  const std::vector<std::pair<std::string, std::string>>& members);
  std::string text() const { return std::string(buffer_.GetString(), buffer_.GetSize()); }

 private:
  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> writer_;
};

// `value` as PayloadWriter::number writes it ("2", "-0.5").
std::string number_text(double value);

}  // namespace sortie::payload

#endif  // SORTIE_PLUGIN_SUPPORT_PAYLOAD_WRITER_HPP
