#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sortie/model/config_file.hpp>
#include <sortie/model/config_trust.hpp>
#include <sortie/model/error.hpp>
#include <sstream>

#include "model_files.hpp"
#include "model_suggest.hpp"

namespace sortie::model {
namespace {

std::string trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  const size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

struct Sections {
  std::map<std::string, std::map<std::string, ConfigValue>> keys;
  std::map<std::string, std::string> origins;  // of each section's first header
};

// TorchX writes "None" for an option left at the scheduler's default (`torchx configure`).
constexpr const char* kTorchxUnset = "None";

// Parses one INI file; keys repeated within one file are errors. `torchx`: as Python's
// configparser reads a .torchxconfig, a key ends at the first '=' or ':'.
Sections parse_ini(const std::string& path, const std::string& content, bool torchx) {
  Sections sections;
  std::istringstream lines(content);
  std::string raw_line;
  std::string section;
  bool in_section = false;
  int number = 0;
  while (std::getline(lines, raw_line)) {
    ++number;
    const std::string where = path + ":" + std::to_string(number);
    const std::string line = trim(raw_line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      if (line.back() != ']')
        throw Error::invalid_argument(where + ": section header '" + line + "' lacks ']'");
      section = trim(line.substr(1, line.size() - 2));
      if (section.empty()) throw Error::invalid_argument(where + ": empty section name '[]'");
      in_section = true;
      sections.keys[section];  // an empty section still exists
      sections.origins.emplace(section, where);
      continue;
    }
    const size_t equals = line.find_first_of(torchx ? "=:" : "=");
    if (equals == std::string::npos) {
      throw Error::invalid_argument(
          where + ": expected [SECTION], KEY = VALUE or a comment ('#' or ';'), got '" + line +
          "'");
    }
    const std::string key = trim(line.substr(0, equals));
    if (key.empty())
      throw Error::invalid_argument(where + ": '" + line + "' has no key before '='");
    if (!in_section) {
      throw Error::invalid_argument(
          where + ": '" + key +
          "' is outside any section; put it under [SCHEDULER], [cli:run] or "
          "[component:NAME]");
    }
    auto& keys = sections.keys[section];
    const auto existing = keys.find(key);
    if (existing != keys.end()) {
      throw Error::invalid_argument(where + ": key '" + key + "' of [" + section +
                                    "] is already set at " + existing->second.origin);
    }
    std::string value = trim(line.substr(equals + 1));
    if (torchx && value == kTorchxUnset) continue;
    keys.emplace(key, ConfigValue{std::move(value), where});
  }
  return sections;
}

}  // namespace

ConfigFile ConfigFile::load(const std::vector<std::string>& paths) {
  std::vector<Source> sources;
  for (const auto& path : paths) sources.push_back({path, false, Dialect::kSortie});
  return load_sources(sources);
}

ConfigFile ConfigFile::load_sources(const std::vector<Source>& sources) {
  ConfigFile config;
  for (const auto& source : sources) {
    const auto content =
        read_text_file_if_exists(source.path, "config file", limits::kConfigFileBytes);
    if (!content) continue;
    config.files_read_.push_back(source.path);
    Sections file = parse_ini(source.path, *content, source.dialect == Dialect::kTorchx);
    const bool trusted = !source.needs_trust || is_trusted_config(source.path, *content);
    for (auto& [name, keys] : file.keys) {
      auto& merged = config.sections_[name];
      for (auto& [key, value] : keys) {
        value.trusted = trusted;
        merged.emplace(key, std::move(value));  // earlier file wins
      }
    }
    config.section_origins_.merge(file.origins);
  }
  return config;
}

std::vector<ConfigFile::Source> ConfigFile::lookup(const char* env_var, const std::string& name,
                                                   bool home_first, Dialect dialect) {
  if (const char* explicit_file = std::getenv(env_var);
      explicit_file != nullptr && *explicit_file != '\0') {
    if (!std::filesystem::exists(explicit_file)) {
      throw Error::not_found(std::string(env_var) + " names '" + explicit_file +
                             "', which does not exist; fix or unset " + env_var);
    }
    return {{explicit_file, false, dialect}};
  }
  // Absolute, so that an error names the file whichever directory it was found in.
  const Source cwd_file{std::filesystem::absolute(name).string(), true, dialect};
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return {cwd_file};
  const Source home_file{std::string(home) + "/" + name, false, dialect};
  std::error_code error;
  // Run from $HOME, both names are one file, the user's own.
  if (std::filesystem::equivalent(cwd_file.path, home_file.path, error)) return {home_file};
  if (home_first) return {home_file, cwd_file};
  return {cwd_file, home_file};
}

ConfigFile ConfigFile::load_default() {
  std::vector<Source> sources = lookup("SORTIE_CONFIG", ".sortieconfig", false, Dialect::kSortie);
  for (auto& source : lookup("TORCHXCONFIG", ".torchxconfig", true, Dialect::kTorchx)) {
    sources.push_back(std::move(source));
  }
  return load_sources(sources);
}

void ConfigFile::check_sections(const std::vector<std::string>& known) const {
  for (const auto& [name, origin] : section_origins_) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    throw Error::invalid_argument(
        origin + ": no section [" + name + "] is read" + did_you_mean(name, known) +
        "; sections: [cli:run], [SCHEDULER] for a scheduler's run options, "
        "[component:NAME] for a component's parameters");
  }
}

void ConfigFile::check_keys(const std::string& section, const std::vector<std::string>& known,
                            const std::string& what) const {
  const auto found = sections_.find(section);
  if (found == sections_.end()) return;
  for (const auto& [key, value] : found->second) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    throw Error::invalid_argument(value.origin + ": [" + section + "] has no key '" + key + "'" +
                                  did_you_mean(key, known) + "; its keys are the " + what + ": " +
                                  (known.empty() ? "none" : quoted_list(known)));
  }
}

std::map<std::string, ConfigValue> ConfigFile::section(const std::string& name) const {
  const auto found = sections_.find(name);
  return found == sections_.end() ? std::map<std::string, ConfigValue>{} : found->second;
}

std::optional<ConfigValue> ConfigFile::get(const std::string& section,
                                           const std::string& key) const {
  const auto found = sections_.find(section);
  if (found == sections_.end()) return std::nullopt;
  const auto value = found->second.find(key);
  if (value == found->second.end()) return std::nullopt;
  return value->second;
}

}  // namespace sortie::model
