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

// Sets `value` from `json`; false when `json` is not of the option's type.
bool read_value(const rapidjson::Value& json, TypedRunOptions::Value& value) {
  const std::string& type = value.type;
  if (type == "str" && json.IsString()) {
    value.text.assign(json.GetString(), json.GetStringLength());
  } else if (type == "int" && json.IsInt64()) {
    value.integer = json.GetInt64();
  } else if (type == "float" && json.IsNumber()) {
    value.number = json.GetDouble();
  } else if (type == "bool" && json.IsBool()) {
    value.boolean = json.GetBool();
  } else if ((type == "list" && json.IsArray()) || (type == "dict" && json.IsObject())) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    json.Accept(writer);
    value.text.assign(buffer.GetString(), buffer.GetSize());
  } else {
    return false;
  }
  value.set = true;
  return true;
}

const TypedRunOptions::Value& find(const TypedRunOptions& options, std::string_view name,
                                   std::string_view type) {
  const auto it = options.values.find(name);
  if (it == options.values.end() || (it->second.type != type && type != "json")) {
    throw Error::invalid_argument("no run option '" + std::string(name) + "' of type " +
                                  std::string(type) + " in the scheduler's table");
  }
  if (!it->second.set) {
    throw Error::failed_precondition("run option '" + std::string(name) +
                                     "' is neither given nor defaulted");
  }
  return it->second;
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
                                 size_t count) {
  TypedRunOptions typed;
  for (const RunOptionSpec* option = options; option != options + count; ++option) {
    TypedRunOptions::Value& value = typed.values[option->name];
    value.type = option->type;
    rapidjson::Document fallback;
    fallback.Parse(option->default_json);
    if (!fallback.HasParseError() && !fallback.IsNull()) read_value(fallback, value);
  }
  rapidjson::Document cfg;
  cfg.Parse(cfg_json.data(), cfg_json.size());
  if (cfg.HasParseError() || !cfg.IsObject()) {
    throw Error::invalid_argument("the run options are not a JSON object");
  }
  for (const auto& member : cfg.GetObject()) {
    const std::string name(member.name.GetString(), member.name.GetStringLength());
    const auto it = typed.values.find(name);
    if (it == typed.values.end())
      throw Error::invalid_argument("unknown run option '" + name + "'");
    if (member.value.IsNull()) continue;  // the host's "no value"
    if (!read_value(member.value, it->second)) {
      throw Error::invalid_argument("run option '" + name + "': expected " + it->second.type);
    }
  }
  for (const RunOptionSpec* option = options; option != options + count; ++option) {
    if ((option->flags & kRunOptionRequired) != 0 && !typed.values[option->name].set) {
      throw Error::invalid_argument("run option '" + std::string(option->name) + "' is required");
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
bool TypedRunOptions::has(std::string_view name) const {
  const auto it = values.find(name);
  return it != values.end() && it->second.set;
}

}  // namespace sortie
