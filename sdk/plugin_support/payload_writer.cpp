#include "payload_writer.hpp"

namespace sortie::payload {

void PayloadWriter::key(std::string_view name) {
  writer_.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()));
}

void PayloadWriter::string(std::string_view text) {
  writer_.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

void PayloadWriter::member(std::string_view name, std::string_view text) {
  key(name);
  string(text);
}

void PayloadWriter::member(std::string_view name, int64_t number) {
  key(name);
  writer_.Int64(number);
}

void PayloadWriter::member(std::string_view name, const std::optional<int64_t>& number) {
  key(name);
  if (number) {
    writer_.Int64(*number);
  } else {
    writer_.Null();
  }
}

void PayloadWriter::raw_member(std::string_view name, std::string_view json) {
  key(name);
  writer_.RawValue(json.data(), json.size(), rapidjson::kObjectType);
}

}  // namespace sortie::payload
