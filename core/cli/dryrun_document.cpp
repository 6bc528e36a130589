#include "dryrun_document.hpp"

#include <rapidjson/document.h>

#include <sortie/model/error.hpp>
#include <sortie/session/document_text.hpp>

namespace sortie::cli {

namespace {

// The items a YAML stream splits `document` into: its elements (an array or a List's `items`),
// else the document itself.
std::vector<const rapidjson::Value*> stream_items(const rapidjson::Value& document) {
  const rapidjson::Value* items = nullptr;
  if (document.IsArray()) {
    items = &document;
  } else if (document.IsObject()) {
    const auto kind = document.FindMember("kind");
    const auto list_items = document.FindMember("items");
    if (kind != document.MemberEnd() && kind->value.IsString() &&
        std::string(kind->value.GetString()) == "List" && list_items != document.MemberEnd() &&
        list_items->value.IsArray()) {
      items = &list_items->value;
    }
  }
  if (items == nullptr) return {&document};
  std::vector<const rapidjson::Value*> split;
  for (const rapidjson::Value& item : items->GetArray()) split.push_back(&item);
  return split;
}

}  // namespace

DocumentFormat document_format_from_string(const std::string& text) {
  if (text == "json") return DocumentFormat::kJson;
  if (text == "yaml") return DocumentFormat::kYaml;
  throw Error::invalid_argument("-o/--output '" + text + "': expected json or yaml");
}

std::string render_dryrun_document(const std::string& dryrun_json, DocumentFormat format,
                                   const std::string& scheduler) {
  rapidjson::Document dry;
  dry.Parse(dryrun_json.data(), dryrun_json.size());
  if (dry.HasParseError() || !dry.IsObject()) {
    throw Error::internal(scheduler + ": dryrun result is not a JSON object");
  }
  auto document = dry.FindMember("document");
  if (document == dry.MemberEnd()) document = dry.FindMember("request");
  if (document == dry.MemberEnd()) {
    throw Error::internal(scheduler +
                          ": dryrun result has neither 'document' nor 'request' to print");
  }
  if (format == DocumentFormat::kYaml) return session::yaml_stream(stream_items(document->value));
  return session::pretty_json(document->value) + "\n";
}

}  // namespace sortie::cli
