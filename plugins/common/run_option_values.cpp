#include "run_option_values.hpp"

#include <sortie/error.hpp>

#include "json_fields.hpp"

namespace sortie {
namespace {

// Long values are cut: the error names the option, the value only illustrates.
constexpr size_t kShownValueChars = 60;

}  // namespace

RunOptionValues::RunOptionValues(const rapidjson::Value* cfg, std::span<const RunOptionSpec> table,
                                 std::string_view scheduler)
    : cfg_(cfg != nullptr && cfg->IsNull() ? nullptr : cfg) {
  if (cfg_ != nullptr && !cfg_->IsObject()) {
    throw Error::invalid_argument("dryrun input: 'cfg' must be an object");
  }
  if (cfg_ != nullptr) refuse_unknown_run_options(*cfg_, table, scheduler);
  for (const RunOptionSpec& option : table) {
    if ((option.flags & kRunOptionRequired) == 0) continue;
    const rapidjson::Value* value = find(option.name);
    if (value == nullptr || (value->IsString() && value->GetStringLength() == 0)) {
      throw Error::invalid_argument("run option '" + std::string(option.name) +
                                    "' is required by the " + std::string(scheduler) +
                                    " scheduler; pass -cfg " + option.name +
                                    "=... or set it in .sortieconfig");
    }
  }
}

const rapidjson::Value* RunOptionValues::find(std::string_view name) const {
  return cfg_ == nullptr ? nullptr : find_member(*cfg_, name);
}

void RunOptionValues::wrong_type(std::string_view name, const rapidjson::Value& value,
                                 const char* expected) const {
  std::string shown = to_json_text(value);
  if (shown.size() > kShownValueChars) shown = shown.substr(0, kShownValueChars) + "...";
  throw Error::invalid_argument("run option '" + std::string(name) + "': expected " + expected +
                                ", got " + shown);
}

bool RunOptionValues::has(std::string_view name) const { return find(name) != nullptr; }

std::string RunOptionValues::string(std::string_view name, std::string fallback) const {
  const rapidjson::Value* value = find(name);
  if (value == nullptr) return fallback;
  if (!value->IsString()) wrong_type(name, *value, "a string");
  return std::string(value->GetString(), value->GetStringLength());
}

int64_t RunOptionValues::integer(std::string_view name, int64_t fallback) const {
  const rapidjson::Value* value = find(name);
  if (value == nullptr) return fallback;
  if (value->IsInt64()) return value->GetInt64();
  // An integral double (2.0) counts: JSON writers differ in how they print whole numbers.
  if (value->IsDouble() &&
      value->GetDouble() == static_cast<double>(static_cast<int64_t>(value->GetDouble()))) {
    return static_cast<int64_t>(value->GetDouble());
  }
  wrong_type(name, *value, "an integer");
}

double RunOptionValues::number(std::string_view name, double fallback) const {
  const rapidjson::Value* value = find(name);
  if (value == nullptr) return fallback;
  if (!value->IsNumber()) wrong_type(name, *value, "a number");
  return value->GetDouble();
}

bool RunOptionValues::boolean(std::string_view name, bool fallback) const {
  const rapidjson::Value* value = find(name);
  if (value == nullptr) return fallback;
  if (!value->IsBool()) wrong_type(name, *value, "true or false");
  return value->GetBool();
}

std::optional<std::vector<std::string>> RunOptionValues::string_list(std::string_view name) const {
  const rapidjson::Value* value = find(name);
  if (value == nullptr) return std::nullopt;
  if (!value->IsArray()) wrong_type(name, *value, "a list of strings");
  std::vector<std::string> items;
  for (const rapidjson::Value& item : value->GetArray()) {
    if (!item.IsString()) wrong_type(name, *value, "a list of strings");
    items.emplace_back(item.GetString(), item.GetStringLength());
  }
  return items;
}

std::vector<std::pair<std::string, std::string>> RunOptionValues::string_map(
    std::string_view name) const {
  std::vector<std::pair<std::string, std::string>> entries;
  const rapidjson::Value* value = find(name);
  if (value == nullptr) return entries;
  if (!value->IsObject()) wrong_type(name, *value, "a map of strings to strings");
  for (const auto& entry : value->GetObject()) {
    if (!entry.value.IsString()) wrong_type(name, *value, "a map of strings to strings");
    entries.emplace_back(std::string(entry.name.GetString(), entry.name.GetStringLength()),
                         std::string(entry.value.GetString(), entry.value.GetStringLength()));
  }
  return entries;
}

}  // namespace sortie
