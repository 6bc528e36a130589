#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <sortie/error.hpp>
#include <sortie/run_options.hpp>

#include "payload_writer.hpp"

namespace sortie {
namespace {

// The names of sortie.runopts/1 "effect" (docs/payloads.md P-5).
const char* effect_name(RunOptionEffect effect) {
  switch (effect) {
    case RunOptionEffect::kNone:
      return "none";
    case RunOptionEffect::kRunsProgram:
      return "runs_program";
    case RunOptionEffect::kWidensPrivilege:
      return "widens_privilege";
    case RunOptionEffect::kSendsData:
      return "sends_data";
    case RunOptionEffect::kChoosesWriteLocation:
      return "chooses_write_location";
  }
  return "none";
}

// Long values are cut: the error names the option, the value only illustrates.
constexpr size_t kShownValueChars = 60;

std::string json_text(const rapidjson::Value& json) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  json.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// What a value of `type` must be, as the errors say it.
const char* expected_words(const std::string& type) {
  if (type == "str") return "a string";
  if (type == "int") return "an integer";
  if (type == "float") return "a number";
  if (type == "bool") return "true or false";
  if (type == "list") return "a list of strings";
  if (type == "dict") return "a map of strings to strings";
  return type.c_str();
}

// Sets `value` from `json`; false when `json` is not of the option's type.
bool read_value(const rapidjson::Value& json, TypedRunOptions::Value& value) {
  const std::string& type = value.type;
  if (type == "str" && json.IsString()) {
    value.text.assign(json.GetString(), json.GetStringLength());
  } else if (type == "int" && json.IsInt64()) {
    value.integer = json.GetInt64();
  } else if (type == "int" && json.IsDouble() &&
             json.GetDouble() == static_cast<double>(static_cast<int64_t>(json.GetDouble()))) {
    value.integer = static_cast<int64_t>(json.GetDouble());  // JSON writers differ on 2 and 2.0
  } else if (type == "float" && json.IsNumber()) {
    value.number = json.GetDouble();
  } else if (type == "bool" && json.IsBool()) {
    value.boolean = json.GetBool();
  } else if (type == "list" && json.IsArray()) {
    value.items.clear();
    for (const rapidjson::Value& item : json.GetArray()) {
      if (!item.IsString()) return false;
      value.items.emplace_back(item.GetString(), item.GetStringLength());
    }
    value.text = json_text(json);
  } else if (type == "dict" && json.IsObject()) {
    value.entries.clear();
    for (const auto& entry : json.GetObject()) {
      if (!entry.value.IsString()) return false;
      value.entries.emplace_back(
          std::string(entry.name.GetString(), entry.name.GetStringLength()),
          std::string(entry.value.GetString(), entry.value.GetStringLength()));
    }
    value.text = json_text(json);
  } else {
    return false;
  }
  value.set = true;
  return true;
}

const TypedRunOptions::Value& option_of(const TypedRunOptions& options, std::string_view name,
                                        std::string_view type) {
  const auto it = options.values.find(name);
  if (it == options.values.end() || (it->second.type != type && type != "json")) {
    throw Error::invalid_argument("no run option '" + std::string(name) + "' of type " +
                                  std::string(type) + " in the scheduler's table");
  }
  return it->second;
}

const TypedRunOptions::Value& find(const TypedRunOptions& options, std::string_view name,
                                   std::string_view type) {
  const TypedRunOptions::Value& value = option_of(options, name, type);
  if (!value.set) {
    throw Error::failed_precondition("run option '" + std::string(name) +
                                     "' is neither given nor defaulted");
  }
  return value;
}

}  // namespace

std::string write_run_options(const RunOptionSpec* options, size_t count) {
  payload::PayloadWriter w;
  w.json().StartObject();
  w.member("schema", "sortie.runopts/1");
  w.key("options");
  w.json().StartArray();
  for (const RunOptionSpec* option = options; option != options + count; ++option) {
    w.json().StartObject();
    w.member("name", option->name);
    w.member("type", option->type);
    w.raw_member("default", option->default_json);
    w.key("required");
    w.json().Bool((option->flags & kRunOptionRequired) != 0);
    w.member("effect", effect_name(option->effect));
    w.member("help", option->help);
    w.json().EndObject();
  }
  w.json().EndArray();
  w.json().EndObject();
  return w.text();
}

TypedRunOptions read_run_options(std::string_view cfg_json, const RunOptionSpec* options,
                                 size_t count, std::string_view scheduler) {
  const std::string scheduler_name(scheduler);
  TypedRunOptions typed;
  for (const RunOptionSpec* option = options; option != options + count; ++option) {
    TypedRunOptions::Value& value = typed.values[option->name];
    value.type = option->type;
    rapidjson::Document fallback;
    fallback.Parse(option->default_json);
    if (!fallback.HasParseError() && !fallback.IsNull()) read_value(fallback, value);
  }
  rapidjson::Document cfg;
  if (!cfg_json.empty()) cfg.Parse(cfg_json.data(), cfg_json.size());
  if (cfg.HasParseError() || !(cfg.IsObject() || cfg.IsNull())) {
    throw Error::invalid_argument("dryrun input: 'cfg' must be an object");
  }
  if (cfg.IsObject()) {
    for (const auto& member : cfg.GetObject()) {
      const std::string name(member.name.GetString(), member.name.GetStringLength());
      const auto it = typed.values.find(name);
      if (it == typed.values.end()) {
        throw Error::invalid_argument("run option '" + name + "' is not supported by the " +
                                      scheduler_name + " scheduler; see `sortie runopts " +
                                      scheduler_name + "`");
      }
      if (member.value.IsNull()) continue;  // the host's "no value"
      if (!read_value(member.value, it->second)) {
        std::string shown = json_text(member.value);
        if (shown.size() > kShownValueChars) shown = shown.substr(0, kShownValueChars) + "...";
        throw Error::invalid_argument("run option '" + name + "': expected " +
                                      expected_words(it->second.type) + ", got " + shown);
      }
    }
  }
  for (const RunOptionSpec* option = options; option != options + count; ++option) {
    const TypedRunOptions::Value& value = typed.values[option->name];
    const bool empty = !value.set || (value.type == "str" && value.text.empty());
    if ((option->flags & kRunOptionRequired) != 0 && empty) {
      throw Error::invalid_argument(
          "run option '" + std::string(option->name) + "' is required by the " + scheduler_name +
          " scheduler; pass -cfg " + option->name + "=... or set it in .sortieconfig");
    }
  }
  return typed;
}

const std::string& TypedRunOptions::str(std::string_view name) const {
  return find(*this, name, "str").text;
}
int64_t TypedRunOptions::integer(std::string_view name) const {
  return find(*this, name, "int").integer;
}
double TypedRunOptions::number(std::string_view name) const {
  return find(*this, name, "float").number;
}
bool TypedRunOptions::boolean(std::string_view name) const {
  return find(*this, name, "bool").boolean;
}
const std::string& TypedRunOptions::json(std::string_view name) const {
  return find(*this, name, "json").text;
}
std::string TypedRunOptions::str(std::string_view name, std::string_view fallback) const {
  const Value& value = option_of(*this, name, "str");
  return value.set ? value.text : std::string(fallback);
}
int64_t TypedRunOptions::integer(std::string_view name, int64_t fallback) const {
  const Value& value = option_of(*this, name, "int");
  return value.set ? value.integer : fallback;
}
double TypedRunOptions::number(std::string_view name, double fallback) const {
  const Value& value = option_of(*this, name, "float");
  return value.set ? value.number : fallback;
}
bool TypedRunOptions::boolean(std::string_view name, bool fallback) const {
  const Value& value = option_of(*this, name, "bool");
  return value.set ? value.boolean : fallback;
}
std::optional<std::vector<std::string>> TypedRunOptions::strings(std::string_view name) const {
  const Value& value = option_of(*this, name, "list");
  if (!value.set) return std::nullopt;
  return value.items;
}
std::vector<std::pair<std::string, std::string>> TypedRunOptions::string_map(
    std::string_view name) const {
  return option_of(*this, name, "dict").entries;
}
bool TypedRunOptions::has(std::string_view name) const {
  const auto it = values.find(name);
  return it != values.end() && it->second.set;
}

}  // namespace sortie
