// File: sortie/model/config_file.hpp
//
// .sortieconfig and TorchX's .torchxconfig: INI files with the same sections:
//   [SCHEDULER]          default run options for that scheduler (key = value)
//   [cli:run]            defaults for `sortie run` (scheduler = local_cwd, component = NAME)
//   [component:NAME]     defaults for a component's parameters
// Lookup, first file that sets a key wins: $SORTIE_CONFIG (one file) else ./.sortieconfig then
// ~/.sortieconfig; then $TORCHXCONFIG (one file) else ~/.torchxconfig then ./.torchxconfig
// (TorchX's own order, home first). '#' and ';' start comments. In a .torchxconfig, as TorchX reads
// it, a key may end at ':' too and the value None leaves the key unset. Errors name FILE:LINE. A
// section or key nothing reads is an error too (check_sections, check_keys), so a typo never
// vanishes. A working-directory file is untrusted unless `sortie config trust` recorded it
// (config_trust.hpp): its values say so, and run options with an effect are refused from it.
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
  enum class Dialect { kSortie, kTorchx };
  struct Source {
    std::string path;
    bool needs_trust;  // found in the working directory: trusted only if recorded so
    Dialect dialect = Dialect::kSortie;
  };
  static ConfigFile load_sources(const std::vector<Source>& sources);
  // The files of one lookup, first wins: $ENV_VAR alone when set, else ./NAME and ~/NAME.
  static std::vector<Source> lookup(const char* env_var, const std::string& name, bool home_first,
                                    Dialect dialect);

  std::map<std::string, std::map<std::string, ConfigValue>> sections_;
  std::map<std::string, std::string> section_origins_;  // "FILE:LINE" of the first header
  std::vector<std::string> files_read_;
};

}  // namespace sortie::model

#endif  // SORTIE_MODEL_CONFIG_FILE_HPP
