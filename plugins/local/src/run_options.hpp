// The run options of local_cwd and local_dir: their sortie.runopts/1 description and the typed
// values parsed from a dryrun input's "cfg".
#ifndef SORTIE_LOCAL_RUN_OPTIONS_HPP
#define SORTIE_LOCAL_RUN_OPTIONS_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sortie::local {

// Which of the two schedulers: they differ only in where a role runs.
enum class ImageMode { kCwd, kDir };

struct LocalOptions {
  std::string log_dir;  // absolute
  bool prepend_cwd = false;
  bool auto_set_cuda_visible_devices = false;
  std::string image_provider;
  double cancel_grace_period_s = 10.0;
  std::optional<std::vector<std::string>> gpu_devices;
  // Names or "PREFIX*" patterns of the submitter's variables the replicas get; nullopt: all.
  std::optional<std::vector<std::string>> env_allow;
  bool read_only_workdir = false;
};

std::string run_options_payload(ImageMode mode);

// Parses the dryrun input's cfg_json (absent members take their defaults). Unknown options and
// wrong types are INVALID_ARGUMENT errors naming the option and, for an unknown one, `scheduler`.
LocalOptions parse_run_options(std::string_view cfg_json, ImageMode mode,
                               std::string_view scheduler, const std::string& state_dir);

}  // namespace sortie::local

#endif  // SORTIE_LOCAL_RUN_OPTIONS_HPP
