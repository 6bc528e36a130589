#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sortie/model/error.hpp>
#include <sortie/model/runopts.hpp>

#include "json_values.hpp"
#include "model_suggest.hpp"

namespace sortie::model {
namespace {

constexpr std::array<const char*, 6> kTypeNames = {"str", "int", "float", "bool", "list", "dict"};
// Indexed by OptEffect; kSensitive has no "effect" name of its own.
constexpr std::array<const char*, 5> kEffectNames = {"none", "runs_program", "widens_privilege",
                                                     "sends_data", "chooses_write_location"};
// What each effect does, as the refusal of an untrusted origin says it.
constexpr std::array<const char*, 6> kEffectWords = {
    "does nothing the trust rule guards",
    "runs a program",
    "widens privilege",
    "chooses where data or credentials are sent",
    "chooses where files are written",
    "runs a program, chooses credentials or where they are sent"};

std::string trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(begin, end - begin + 1));
}

bool is_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

bool is_key(std::string_view text) {
  const std::string key = trim(text);
  return !key.empty() && std::all_of(key.begin(), key.end(), is_key_char);
}

// A ',' or ';' at `pos` ends a value only when "key=" follows it.
bool starts_pair(std::string_view text, size_t pos) {
  const size_t equals = text.find('=', pos + 1);
  return equals != std::string_view::npos && is_key(text.substr(pos + 1, equals - pos - 1));
}

// Items of a list or dict value: ',' or ';' separated, trimmed, empty ones dropped (so a
// trailing separator is harmless).
std::vector<std::string> split_items(std::string_view text) {
  std::vector<std::string> items;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find_first_of(",;", begin);
    if (end == std::string_view::npos) end = text.size();
    std::string item = trim(text.substr(begin, end - begin));
    if (!item.empty()) items.push_back(std::move(item));
    begin = end + 1;
  }
  return items;
}

void check_default(const json::Value& value, OptType type, const json::Where& where) {
  switch (type) {
    case OptType::kStr:
      json::as_string(value, where);
      return;
    case OptType::kInt:
      if (!value.IsInt64()) json::fail_expected(where, "an integer", value);
      return;
    case OptType::kFloat:
      json::as_number(value, where);
      return;
    case OptType::kBool:
      json::as_bool(value, where);
      return;
    case OptType::kList:
      json::as_string_list(value, where);
      return;
    case OptType::kDict:
      json::as_string_map(value, where);
      return;
  }
}

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// Writes `text` as a value of `opt`'s type, or returns the description of what was expected.
std::optional<std::string> write_typed(Writer& w, const RunOpt& opt, const std::string& text) {
  const std::string value = trim(text);
  switch (opt.type) {
    case OptType::kStr:
      w.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
      return std::nullopt;
    case OptType::kInt: {
      int64_t number = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
      if (value.empty() || error != std::errc() || end != value.data() + value.size()) {
        return "an int";
      }
      w.Int64(number);
      return std::nullopt;
    }
    case OptType::kFloat: {
      char* end = nullptr;
      const double number = std::strtod(value.c_str(), &end);
      if (value.empty() || end != value.c_str() + value.size() || !std::isfinite(number)) {
        return "a float";
      }
      w.Double(number);
      return std::nullopt;
    }
    case OptType::kBool: {
      std::string lower = value;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (lower == "true" || lower == "1" || lower == "yes") {
        w.Bool(true);
      } else if (lower == "false" || lower == "0" || lower == "no") {
        w.Bool(false);
      } else {
        return "a bool (true/false, 1/0, yes/no)";
      }
      return std::nullopt;
    }
    case OptType::kList:
      w.StartArray();
      for (const auto& item : split_items(value)) w.String(item.c_str());
      w.EndArray();
      return std::nullopt;
    case OptType::kDict: {
      std::map<std::string, std::string> entries;
      for (const auto& item : split_items(value)) {
        const size_t separator = item.find_first_of(":=");
        const std::string key = trim(item.substr(0, separator));
        if (separator == std::string::npos || key.empty()) {
          return "a dict of KEY:VALUE pairs separated by ',' or ';' (item '" + item + "')";
        }
        entries[key] = trim(item.substr(separator + 1));
      }
      w.StartObject();
      for (const auto& [key, entry] : entries) {
        w.Key(key.c_str());
        w.String(entry.c_str());
      }
      w.EndObject();
      return std::nullopt;
    }
  }
  return "a known type";
}

[[noreturn]] void refuse_untrusted(const RunOpt& opt, const RawOpt& raw,
                                   std::string_view scheduler) {
  const std::string file = raw.origin.substr(0, raw.origin.rfind(':'));
  const std::string name = std::filesystem::path(file).filename().string();  // .sortieconfig...
  throw Error::invalid_argument(
      raw.origin + ": run option '" + opt.name + "' of scheduler '" + std::string(scheduler) +
      "' " + kEffectWords[static_cast<size_t>(opt.effect)] + " (effect " + to_string(opt.effect) +
      "), so [" + std::string(scheduler) + "] " + opt.name + " is not read from a " + name +
      " found in the working directory unless you trust that file: read it, then run `sortie "
      "config trust " +
      file + "` (or set the option in ~/" + name + " or with -cfg; docs/config-trust.md)");
}

// "effect" names one of kEffectNames; the older "sensitive": true still guards an option.
OptEffect parse_effect(const json::Value& entry, const json::Where& at) {
  const json::Value* sensitive = json::find(entry, "sensitive");
  const bool declared_sensitive =
      sensitive != nullptr && json::as_bool(*sensitive, at / "sensitive");
  const json::Value* effect = json::find(entry, "effect");
  if (effect == nullptr) return declared_sensitive ? OptEffect::kSensitive : OptEffect::kNone;
  const std::string name = json::as_string(*effect, at / "effect");
  const auto found = std::find_if(kEffectNames.begin(), kEffectNames.end(),
                                  [&](const char* known) { return name == known; });
  if (found == kEffectNames.end()) {
    json::fail_expected(at / "effect",
                        "one of none, runs_program, widens_privilege, sends_data, "
                        "chooses_write_location",
                        *effect);
  }
  const auto parsed = static_cast<OptEffect>(found - kEffectNames.begin());
  if (declared_sensitive && parsed == OptEffect::kNone) {
    throw Error::invalid_argument(at.prefix() +
                                  "\"sensitive\": true contradicts \"effect\": \"none\"; "
                                  "name what the option does in \"effect\" alone");
  }
  return parsed;
}

std::vector<std::string> option_names(const std::vector<RunOpt>& opts) {
  std::vector<std::string> names;
  for (const auto& opt : opts) names.push_back(opt.name);
  return names;
}

}  // namespace

const char* to_string(OptType type) noexcept { return kTypeNames[static_cast<size_t>(type)]; }

const char* to_string(OptEffect effect) noexcept {
  return effect == OptEffect::kSensitive ? "sensitive" : kEffectNames[static_cast<size_t>(effect)];
}

std::vector<RunOpt> parse_runopts(std::string_view text, std::string_view origin) {
  const auto document = json::parse(text, origin);
  const json::Where where{std::string(origin), ""};
  json::as_object(document, where);
  json::check_schema(document, where, "sortie.runopts/1");
  const json::Value* options = json::find(document, "options");
  if (options == nullptr) throw Error::invalid_argument(where.prefix() + "options is required");
  json::as_array(*options, where / "options");
  std::vector<RunOpt> opts;
  std::set<std::string> names;
  for (rapidjson::SizeType i = 0; i < options->Size(); ++i) {
    const json::Where at = (where / "options")[i];
    const json::Value& entry = json::as_object((*options)[i], at);
    RunOpt opt;
    const json::Value* name = json::find(entry, "name");
    if (name == nullptr) throw Error::invalid_argument(at.prefix() + "name is required");
    opt.name = json::as_string(*name, at / "name");
    if (!is_key(opt.name) || trim(opt.name) != opt.name) {
      json::fail_expected(at / "name", "a name of letters, digits, '_', '-' or '.'", *name);
    }
    if (!names.insert(opt.name).second) {
      throw Error::invalid_argument(at.prefix() + "option '" + opt.name + "' is declared twice");
    }
    const json::Value* type = json::find(entry, "type");
    if (type == nullptr) throw Error::invalid_argument(at.prefix() + "type is required");
    const std::string type_name = json::as_string(*type, at / "type");
    const auto found = std::find_if(kTypeNames.begin(), kTypeNames.end(),
                                    [&](const char* known) { return type_name == known; });
    if (found == kTypeNames.end()) {
      json::fail_expected(at / "type", "one of str, int, float, bool, list, dict", *type);
    }
    opt.type = static_cast<OptType>(found - kTypeNames.begin());
    if (const json::Value* value = json::find(entry, "default")) {
      check_default(*value, opt.type, at / "default");
      opt.default_json = json::compact(*value);
    }
    if (const json::Value* value = json::find(entry, "required")) {
      opt.required = json::as_bool(*value, at / "required");
    }
    if (const json::Value* value = json::find(entry, "help")) {
      opt.help = json::as_string(*value, at / "help");
    }
    opt.effect = parse_effect(entry, at);
    opts.push_back(std::move(opt));
  }
  return opts;
}

std::map<std::string, std::string> split_cfg(std::string_view text) {
  std::map<std::string, std::string> pairs;
  size_t pos = 0;
  if (trim(text).empty()) return pairs;
  while (pos < text.size()) {
    const size_t equals = text.find('=', pos);
    const std::string key = trim(
        text.substr(pos, equals == std::string_view::npos ? std::string_view::npos : equals - pos));
    if (equals == std::string_view::npos || !is_key(key)) {
      throw Error::invalid_argument(
          "-cfg: '" + trim(text.substr(pos)) +
          "' is not KEY=VALUE; write -cfg key=value,key2=value2 (lists may use ',' or "
          "';', dicts k1:v1;k2:v2)");
    }
    size_t end = equals + 1;
    while (end < text.size() &&
           !((text[end] == ',' || text[end] == ';') && starts_pair(text, end))) {
      ++end;
    }
    if (!pairs.emplace(key, trim(text.substr(equals + 1, end - equals - 1))).second) {
      throw Error::invalid_argument("-cfg: option '" + key + "' is given twice");
    }
    pos = end + 1;
  }
  return pairs;
}

std::string resolve_runopts(const std::vector<RunOpt>& opts,
                            const std::map<std::string, RawOpt>& raw, std::string_view scheduler) {
  const std::string who = "scheduler '" + std::string(scheduler) + "'";
  const auto names = option_names(opts);
  for (const auto& [name, value] : raw) {
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      throw Error::invalid_argument(
          who + " has no run option '" + name + "' (set in " + value.origin + ")" +
          did_you_mean(name, names) +
          "; its options are: " + (names.empty() ? std::string("none") : quoted_list(names)) +
          " (see `sortie runopts " + std::string(scheduler) + "`)");
    }
  }
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  w.StartObject();
  for (const auto& opt : opts) {
    const auto given = raw.find(opt.name);
    if (given != raw.end()) {
      if (opt.effect != OptEffect::kNone && !given->second.trusted) {
        refuse_untrusted(opt, given->second, scheduler);
      }
      w.Key(opt.name.c_str());
      if (const auto expected = write_typed(w, opt, given->second.value)) {
        throw Error::invalid_argument(who + ": run option '" + opt.name + "' (set in " +
                                      given->second.origin + "): expected " + *expected +
                                      ", got '" + given->second.value + "'");
      }
    } else if (opt.default_json) {
      w.Key(opt.name.c_str());
      w.RawValue(opt.default_json->data(), opt.default_json->size(), rapidjson::kObjectType);
    } else if (opt.required) {
      throw Error::invalid_argument(who + ": run option '" + opt.name + "' (" +
                                    to_string(opt.type) + ") is required: " + opt.help +
                                    "; set it with -cfg " + opt.name +
                                    "=VALUE or in .sortieconfig [" + std::string(scheduler) + "]");
    }
  }
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace sortie::model
