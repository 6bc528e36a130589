#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <array>
#include <cctype>
#include <sortie/session/document_text.hpp>

namespace sortie::session {

namespace {

void emit_string(YAML::Emitter& out, std::string_view text) {
  if (plain_scalar_changes_type(text)) out << YAML::DoubleQuoted;
  out << std::string(text);
}

void emit(YAML::Emitter& out, const rapidjson::Value& value) {
  switch (value.GetType()) {
    case rapidjson::kNullType:
      out << YAML::Null;
      return;
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      out << value.GetBool();
      return;
    case rapidjson::kStringType:
      emit_string(out, {value.GetString(), value.GetStringLength()});
      return;
    case rapidjson::kNumberType: {
      // RapidJSON's own rendering: integers exact, doubles in their shortest round-trip form.
      rapidjson::StringBuffer number;
      rapidjson::Writer<rapidjson::StringBuffer> writer(number);
      value.Accept(writer);
      out << number.GetString();
      return;
    }
    case rapidjson::kArrayType:
      out << YAML::BeginSeq;
      for (const rapidjson::Value& item : value.GetArray()) emit(out, item);
      out << YAML::EndSeq;
      return;
    case rapidjson::kObjectType:
      out << YAML::BeginMap;
      for (const auto& member : value.GetObject()) {
        out << YAML::Key;
        emit_string(out, {member.name.GetString(), member.name.GetStringLength()});
        out << YAML::Value;
        emit(out, member.value);
      }
      out << YAML::EndMap;
      return;
  }
}

}  // namespace

std::string pretty_json(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
  writer.SetIndent(' ', 2);
  value.Accept(writer);
  return buffer.GetString();
}

bool plain_scalar_changes_type(std::string_view text) {
  // Null, booleans (YAML 1.1's y/yes/on too, which kubectl's reader still honours) and merge keys.
  static constexpr std::array<std::string_view, 29> kWords = {
      "~",  "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE",
      "y",  "Y",    "yes",  "Yes",  "YES",  "n",    "N",    "no",    "No",    "NO",
      "on", "On",   "ON",   "off",  "Off",  "OFF",  "<<",   "=",     ""};
  for (std::string_view word : kWords) {
    if (text == word) return true;
  }
  // Control characters: yaml-cpp writes a carriage return raw into a plain scalar, where a reader
  // takes it for a line break. A document marker would end the document.
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  if (text.starts_with("---")) return true;
  // Numbers in every base and notation, .inf/.nan, dates and sexagesimals all start with a digit
  // or a dot, after an optional sign; no such text is quoted for nothing but harmlessly.
  const size_t first = (text[0] == '-' || text[0] == '+') ? 1 : 0;
  return first < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[first])) != 0 || text[first] == '.');
}

std::string yaml_stream(const std::vector<const rapidjson::Value*>& documents) {
  YAML::Emitter out;
  out.SetNullFormat(YAML::LowerNull);
  out.SetBoolFormat(YAML::TrueFalseBool);
  for (const rapidjson::Value* document : documents) {
    out << YAML::BeginDoc;
    emit(out, *document);
  }
  std::string text = out.c_str();
  if (!text.empty()) text += '\n';
  return text;
}

}  // namespace sortie::session
