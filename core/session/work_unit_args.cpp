#include <rapidjson/document.h>

#include <algorithm>
#include <sortie/model/secret_env.hpp>
#include <sortie/session/work_unit_args.hpp>

namespace sortie::session {
namespace {

using Values = std::vector<std::pair<std::string, std::string>>;

void append_word(Values& values, const std::string& key, const std::string& word) {
  const auto found = std::find_if(values.begin(), values.end(),
                                  [&](const auto& entry) { return entry.first == key; });
  if (found == values.end()) {
    values.emplace_back(key, word);
  } else {
    found->second += " " + word;
  }
}

// One job's overrides: {"args": [...], "env_vars": {...}}.
Values job_values(const rapidjson::Value& job) {
  Values values;
  if (!job.IsObject()) return values;
  if (const auto args = job.FindMember("args"); args != job.MemberEnd() && args->value.IsArray()) {
    for (const auto& word : args->value.GetArray()) {
      if (!word.IsString()) continue;
      const std::string text = word.GetString();
      const size_t equals = text.find('=');
      if (text.rfind("--", 0) == 0 && equals != std::string::npos && equals > 2) {
        values.emplace_back(text.substr(2, equals - 2), text.substr(equals + 1));
      } else {
        append_word(values, "args", text);
      }
    }
  }
  if (const auto env = job.FindMember("env_vars");
      env != job.MemberEnd() && env->value.IsObject()) {
    for (const auto& variable : env->value.GetObject()) {
      if (variable.value.IsString()) {
        const std::string name = variable.name.GetString();
        const std::string value = variable.value.GetString();
        values.emplace_back("$" + name, model::is_secret_env(name, value)
                                            ? std::string(model::kMaskedSecret)
                                            : value);
      }
    }
  }
  return values;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> hyperparameters_of(const std::string& args_json) {
  rapidjson::Document document;
  if (document.Parse(args_json.c_str()).HasParseError() || !document.IsObject()) return {};
  std::vector<std::pair<std::string, Values>> jobs;
  for (const auto& job : document.GetObject()) {
    jobs.emplace_back(job.name.GetString(), job_values(job.value));
  }
  // A name with one value in every job that has it is shown once; otherwise per job.
  auto agrees = [&](const std::string& key, const std::string& value) {
    for (const auto& [name, values] : jobs) {
      for (const auto& [other_key, other_value] : values) {
        if (other_key == key && other_value != value) return false;
      }
    }
    return true;
  };
  Values merged;
  for (const auto& [name, values] : jobs) {
    for (const auto& [key, value] : values) {
      const std::string shown = agrees(key, value) ? key : name + "." + key;
      const bool seen = std::any_of(merged.begin(), merged.end(),
                                    [&](const auto& entry) { return entry.first == shown; });
      if (!seen) merged.emplace_back(shown, value);
    }
  }
  return merged;
}

std::string hyperparameters_text(const std::string& args_json) {
  std::string text;
  for (const auto& [name, value] : hyperparameters_of(args_json)) {
    text += (text.empty() ? "" : " ") + (name == "args" ? value : name + "=" + value);
  }
  return text;
}

}  // namespace sortie::session
