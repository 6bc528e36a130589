#include "run_option_table.hpp"

#include <sortie/error.hpp>

#include "json_fields.hpp"

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

}  // namespace

std::string write_run_options(std::span<const RunOptionSpec> options) {
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("schema");
  writer.String("sortie.runopts/1");
  writer.Key("options");
  writer.StartArray();
  for (const RunOptionSpec& option : options) {
    writer.StartObject();
    writer.Key("name");
    writer.String(option.name);
    writer.Key("type");
    writer.String(option.type);
    writer.Key("default");
    const std::string_view default_json = option.default_json;
    writer.RawValue(default_json.data(), default_json.size(), rapidjson::kObjectType);
    writer.Key("required");
    writer.Bool((option.flags & kRunOptionRequired) != 0);
    writer.Key("effect");
    writer.String(effect_name(option.effect));
    writer.Key("help");
    writer.String(option.help);
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void refuse_unknown_run_options(const rapidjson::Value& cfg, std::span<const RunOptionSpec> options,
                                std::string_view scheduler) {
  for (const auto& member : cfg.GetObject()) {
    const std::string_view name(member.name.GetString(), member.name.GetStringLength());
    bool known = false;
    for (const RunOptionSpec& option : options) known = known || name == option.name;
    if (!known) {
      throw Error::invalid_argument("run option '" + std::string(name) +
                                    "' is not supported by the " + std::string(scheduler) +
                                    " scheduler; see `sortie runopts " + std::string(scheduler) +
                                    "`");
    }
  }
}

}  // namespace sortie
