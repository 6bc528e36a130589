#include <rapidjson/writer.h>

#include <sortie/session/json_text.hpp>

namespace sortie::session {

namespace {

// A RapidJSON output stream appending to a std::string.
struct StringOutput {
  using Ch = char;
  std::string text;
  void Put(char c) { text.push_back(c); }
  void Flush() {}
};

}  // namespace

struct JsonText::Impl {
  StringOutput output;
  rapidjson::Writer<StringOutput> writer{output};
};

JsonText::JsonText() : impl_(std::make_unique<Impl>()) {}
JsonText::~JsonText() = default;
JsonText::JsonText(JsonText&&) noexcept = default;
JsonText& JsonText::operator=(JsonText&&) noexcept = default;

JsonText& JsonText::begin_object() {
  impl_->writer.StartObject();
  return *this;
}

JsonText& JsonText::end_object() {
  impl_->writer.EndObject();
  return *this;
}

JsonText& JsonText::begin_array() {
  impl_->writer.StartArray();
  return *this;
}

JsonText& JsonText::end_array() {
  impl_->writer.EndArray();
  return *this;
}

JsonText& JsonText::key(std::string_view name) {
  impl_->writer.Key(name.data(), static_cast<rapidjson::SizeType>(name.size()), true);
  return *this;
}

JsonText& JsonText::string(std::string_view value) {
  impl_->writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()), true);
  return *this;
}

JsonText& JsonText::number(int64_t value) {
  impl_->writer.Int64(value);
  return *this;
}

JsonText& JsonText::number(double value) {
  impl_->writer.Double(value);
  return *this;
}

JsonText& JsonText::boolean(bool value) {
  impl_->writer.Bool(value);
  return *this;
}

JsonText& JsonText::null() {
  impl_->writer.Null();
  return *this;
}

JsonText& JsonText::raw(std::string_view json) {
  // The type only matters to handlers that build values; the Writer copies the text as it is.
  impl_->writer.RawValue(json.data(), json.size(), rapidjson::kObjectType);
  return *this;
}

JsonText& JsonText::string_or_null(std::string_view value) {
  return value.empty() ? null() : string(value);
}

JsonText& JsonText::raw_or_null(std::string_view json) { return json.empty() ? null() : raw(json); }

const std::string& JsonText::str() const { return impl_->output.text; }

}  // namespace sortie::session
