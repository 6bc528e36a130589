// File: core/plugin_host/plugin_calls.cpp
#include "plugin_calls.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <sortie/json_nesting.hpp>
#include <sortie/limits.hpp>
#include <string>

namespace sortie::plugin_host::detail {
namespace {

void parse_payload(const std::string& context, const char* call, const StringSink& out,
                   const char* schema, rapidjson::Document& document) {
  if (out.cut()) bad_payload(context, call, limits::exceeded("its size", out.limit()));
  const std::string& payload = out.text();
  if (json_nesting_exceeds(payload, limits::value(limits::kJsonDepth))) {
    bad_payload(context, call, limits::exceeded("its JSON nesting", limits::kJsonDepth));
  }
  document.Parse(payload.c_str(), payload.size());
  if (document.HasParseError()) {
    bad_payload(context, call,
                "not JSON (" + std::string(rapidjson::GetParseError_En(document.GetParseError())) +
                    " at offset " + std::to_string(document.GetErrorOffset()) + ")");
  }
  if (!document.IsObject()) bad_payload(context, call, "not a JSON object");
  const auto found = document.FindMember("schema");
  if (found == document.MemberEnd() || !found->value.IsString()) {
    bad_payload(context, call, std::string("no \"schema\" string; expected \"") + schema + "\"");
  }
  if (found->value.GetString() != std::string_view(schema)) {
    bad_payload(
        context, call,
        std::string("schema \"") + found->value.GetString() + "\", expected \"" + schema + "\"");
  }
}

thread_local PluginCall t_current_call;

}  // namespace

void bad_payload(const std::string& context, const char* call, const std::string& what) {
  throw Error::internal(context + ": " + call + " returned an invalid payload: " + what +
                        " (docs/payloads.md); this is a bug in the plugin");
}

const PluginCall& current_plugin_call() noexcept { return t_current_call; }

PluginCallMarker::PluginCallMarker(const std::string& context, const char* call) noexcept
    : previous_(t_current_call) {
  t_current_call = PluginCall{&context, call};
}

PluginCallMarker::~PluginCallMarker() { t_current_call = previous_; }

void StringSink::append(void* ctx, const char* data, size_t len) {
  auto& sink = *static_cast<StringSink*>(ctx);
  if (data == nullptr || sink.cut_) return;
  if (len <= sink.max_bytes_ - sink.text_.size()) {
    sink.text_.append(data, len);
    return;
  }
  sink.text_.append(data, sink.max_bytes_ - sink.text_.size());
  sink.text_ += " [cut: " + limits::exceeded("this text", sink.limit_) + "]";
  sink.cut_ = true;
}

bool is_known_status(sortie_status status) {
  switch (status) {
    case SORTIE_OK:
    case SORTIE_CANCELLED:
    case SORTIE_UNKNOWN:
    case SORTIE_INVALID_ARGUMENT:
    case SORTIE_DEADLINE_EXCEEDED:
    case SORTIE_NOT_FOUND:
    case SORTIE_ALREADY_EXISTS:
    case SORTIE_PERMISSION_DENIED:
    case SORTIE_RESOURCE_EXHAUSTED:
    case SORTIE_FAILED_PRECONDITION:
    case SORTIE_UNIMPLEMENTED:
    case SORTIE_INTERNAL:
    case SORTIE_UNAVAILABLE:
    case SORTIE_UNAUTHENTICATED:
      return true;
    default:
      return false;
  }
}

void check_status(const std::string& context, const char* call, sortie_status status,
                  const std::string& message) {
  if (status == SORTIE_OK) return;
  const std::string text = message.empty() ? "(the plugin gave no message)" : message;
  if (!is_known_status(status)) {
    throw Error::unknown(context + ": " + call + " failed with status " + std::to_string(status) +
                         ", which is not a sortie status (treated as UNKNOWN): " + text);
  }
  throw Error(status, context + ": " + call + " failed: " + text);
}

void check_payload(const std::string& context, const char* call, const StringSink& out,
                   const char* schema) {
  rapidjson::Document document;
  parse_payload(context, call, out, schema, document);
}

std::vector<std::string> resource_names_of(const std::string& context, const StringSink& out) {
  rapidjson::Document document;
  parse_payload(context, "names", out, "sortie.resource_names/1", document);
  const auto names = document.FindMember("names");
  if (names == document.MemberEnd() || !names->value.IsArray()) {
    bad_payload(context, "names", "no \"names\" array");
  }
  std::vector<std::string> result;
  for (const auto& name : names->value.GetArray()) {
    if (!name.IsString())
      bad_payload(context, "names", "\"names\" holds a value that is not a string");
    result.emplace_back(name.GetString(), name.GetStringLength());
  }
  return result;
}

}  // namespace sortie::plugin_host::detail
