// File: sortie/core/config_file.hpp
//
// .sortieconfig: an INI file, after .torchxconfig. Sections:
//   [SCHEDULER]          default run options for that scheduler (key = value)
//   [cli:run]            defaults for `sortie run` flags (scheduler = local_cwd)
//   [component:NAME]     defaults for a component's parameters
// Lookup: $SORTIE_CONFIG (one file) else ./.sortieconfig then ~/.sortieconfig; for each key the
// first file that sets it wins. '#' and ';' start comments. Errors name FILE:LINE.
#ifndef SORTIE_CORE_CONFIG_FILE_HPP
#define SORTIE_CORE_CONFIG_FILE_HPP

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sortie::core {

struct ConfigValue {
  std::string value;
  std::string origin;  // "FILE:LINE"
};

class ConfigFile {
 public:
  // Reads the files of the lookup above (missing files are fine, malformed ones are errors).
  static ConfigFile load_default();
  // Reads the given files, earliest first (earlier wins per key).
  static ConfigFile load(const std::vector<std::string>& paths);

  // All keys of a section, or an empty map.
  std::map<std::string, ConfigValue> section(const std::string& name) const;
  std::optional<ConfigValue> get(const std::string& section, const std::string& key) const;
  const std::vector<std::string>& files_read() const { return files_read_; }

 private:
  std::map<std::string, std::map<std::string, ConfigValue>> sections_;
  std::vector<std::string> files_read_;
};

}  // namespace sortie::core

#endif  // SORTIE_CORE_CONFIG_FILE_HPP
