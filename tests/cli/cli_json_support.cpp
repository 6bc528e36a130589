#include "cli_json_support.hpp"

#include <rapidjson/error/en.h>

#include <stdexcept>

namespace sortie::testing {

rapidjson::Document parse_document(const std::string& text, const std::string& schema) {
  rapidjson::Document document;
  document.Parse(text.data(), text.size());
  if (document.HasParseError()) {
    throw std::runtime_error("not one JSON document (" +
                             std::string(rapidjson::GetParseError_En(document.GetParseError())) +
                             " at offset " + std::to_string(document.GetErrorOffset()) + "):\n" +
                             text);
  }
  const auto found = document.IsObject() ? document.FindMember("schema") : document.MemberEnd();
  if (found == document.MemberEnd() || !found->value.IsString() ||
      found->value.GetString() != schema) {
    throw std::runtime_error("expected an object with \"schema\": \"" + schema + "\":\n" + text);
  }
  return document;
}

const rapidjson::Value& element_named(const rapidjson::Value& items, const std::string& name) {
  if (items.IsArray()) {
    for (const rapidjson::Value& item : items.GetArray()) {
      const auto found = item.IsObject() ? item.FindMember("name") : item.MemberEnd();
      if (found != item.MemberEnd() && found->value.IsString() &&
          found->value.GetString() == name) {
        return item;
      }
    }
  }
  throw std::runtime_error("no element named '" + name + "'");
}

}  // namespace sortie::testing
