#include "payload_writer.hpp"

#include <cmath>

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

void PayloadWriter::number(double value) {
  if (value == std::floor(value) && std::abs(value) < 1e15) {
    writer_.Int64(static_cast<int64_t>(value));
  } else {
    writer_.Double(value);
  }
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

void PayloadWriter::raw_object(std::string_view name,
                               const std::vector<std::pair<std::string, std::string>>& members) {
  key(name);
  writer_.StartObject();
  for (const auto& [member, json] : members) raw_member(member, json);
  writer_.EndObject();
}

std::string number_text(double value) {
  PayloadWriter w;
  w.number(value);
  return w.text();
}

}  // namespace sortie::payload
