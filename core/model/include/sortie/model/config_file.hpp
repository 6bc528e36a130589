// File: sortie/model/config_file.hpp
//
// .sortieconfig: an INI file, after .torchxconfig. Sections:
//   [SCHEDULER]          default run options for that scheduler (key = value)
//   [cli:run]            defaults for `sortie run` flags (scheduler = local_cwd)
//   [component:NAME]     defaults for a component's parameters
// Lookup: $SORTIE_CONFIG (one file) else ./.sortieconfig then ~/.sortieconfig; for each key the
// first file that sets it wins. '#' and ';' start comments. Errors name FILE:LINE. A section or
// key nothing reads is an error too (check_sections, check_keys), so a typo never vanishes.
// ./.sortieconfig is untrusted unless `sortie config trust` recorded it (config_trust.hpp): its
// values say so, and run options a plugin declares sensitive are refused from it.
#ifndef SORTIE_MODEL_CONFIG_FILE_HPP
#define SORTIE_MODEL_CONFIG_FILE_HPP

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sortie::model {

struct ConfigValue {
  std::string value;
  std::string origin;   // "FILE:LINE"
  bool trusted = true;  // false: from a working-directory file the user has not trusted
};

class ConfigFile {
 public:
  // Reads the files of the lookup above (missing files are fine, malformed ones are errors).
  static ConfigFile load_default();
  // Reads the given files, earliest first (earlier wins per key); all are trusted.
  static ConfigFile load(const std::vector<std::string>& paths);

  // All keys of a section, or an empty map.
  std::map<std::string, ConfigValue> section(const std::string& name) const;
  std::optional<ConfigValue> get(const std::string& section, const std::string& key) const;
  const std::vector<std::string>& files_read() const { return files_read_; }

  // Throws Error(INVALID_ARGUMENT) naming FILE:LINE of the first section whose name is not in
  // `known`, with "did you mean" among them.
  void check_sections(const std::vector<std::string>& known) const;
  // Throws Error(INVALID_ARGUMENT) naming FILE:LINE of the first key of `section` not in
  // `known`; `what` says what the keys are (e.g. "run options of local_cwd").
  void check_keys(const std::string& section, const std::vector<std::string>& known,
                  const std::string& what) const;

 private:
  struct Source {
    std::string path;
    bool needs_trust;  // found in the working directory: trusted only if recorded so
  };
  static ConfigFile load_sources(const std::vector<Source>& sources);

  std::map<std::string, std::map<std::string, ConfigValue>> sections_;
  std::map<std::string, std::string> section_origins_;  // "FILE:LINE" of the first header
  std::vector<std::string> files_read_;
};

}  // namespace sortie::model

#endif  // SORTIE_MODEL_CONFIG_FILE_HPP
