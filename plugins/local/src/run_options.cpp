#include "run_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <sortie/plugin.hpp>
#include <sortie/run_options.hpp>

#include "environment_allow_list.hpp"

namespace sortie::local {
namespace {

constexpr const char* kImageProvider = "image_provider";

// image_provider's default depends on the mode; options_for() fills it in.
constexpr RunOptionSpec kOptions[] = {
    {"log_dir", "str", "null",
     "base directory of app logs and state; apps go to <log_dir>/<session>/<app_id>/ "
     "(default: <state_dir>/logs)",
     RunOptionEffect::kChoosesWriteLocation},
    {"prepend_cwd", "bool", "false",
     "put the role's working directory first on PATH instead of last (default: false)",
     RunOptionEffect::kRunsProgram},
    {"auto_set_cuda_visible_devices", "bool", "false",
     "give each replica, in role order, its own contiguous block of resource.gpu devices in "
     "CUDA_VISIBLE_DEVICES (default: false)",
     RunOptionEffect::kNone},
    {kImageProvider, "str", "null",
     "image provider that resolves each role's image before dryrun (default: cwd for local_cwd, "
     "dir for local_dir)",
     RunOptionEffect::kNone},
    {"cancel_grace_period", "float", "10.0",
     "seconds between SIGTERM and SIGKILL when replicas are stopped (default: 10)",
     RunOptionEffect::kNone},
    {"gpu_devices", "list", "null",
     "GPU device ids to hand out with auto_set_cuda_visible_devices, overriding discovery "
     "(SORTIE_GPU_DEVICES, /proc/driver/nvidia/gpus, nvidia-smi -L)",
     RunOptionEffect::kNone},
    {"read_only_workdir", "bool", "false",
     "make each role's image directory (its working directory) read-only to the app, root "
     "included: a read-only bind mount in a mount namespace of the app's own; the app fails to "
     "start, naming why, where none can be made (experiments set it for their snapshots)",
     RunOptionEffect::kNone},
    {"env_allow", "list", "null",
     "pass only these variables of the submitter's environment to the replicas: names, or "
     "prefixes ending in * (e.g. PATH,HOME,NCCL_*); the role's env and SORTIE_* always pass "
     "(default: the whole environment)",
     RunOptionEffect::kNone},
};

using OptionTable = std::array<RunOptionSpec, std::size(kOptions)>;

OptionTable options_for(ImageMode mode) {
  OptionTable table;
  std::copy(std::begin(kOptions), std::end(kOptions), table.begin());
  for (RunOptionSpec& option : table) {
    if (std::string_view(option.name) == kImageProvider) {
      option.default_json = mode == ImageMode::kCwd ? "\"cwd\"" : "\"dir\"";
    }
  }
  return table;
}

std::string current_directory() {
  char buffer[4096];
  if (::getcwd(buffer, sizeof(buffer)) == nullptr) {
    throw Error::failed_precondition("cannot determine the current working directory");
  }
  return buffer;
}

}  // namespace

std::string run_options_payload(ImageMode mode) {
  const OptionTable table = options_for(mode);
  return write_run_options(table.data(), table.size());
}

LocalOptions parse_run_options(std::string_view cfg_json, ImageMode mode,
                               std::string_view scheduler, const std::string& state_dir) {
  const OptionTable table = options_for(mode);
  const TypedRunOptions values = read_run_options(cfg_json, table.data(), table.size(), scheduler);
  LocalOptions options;
  options.log_dir = values.str("log_dir", state_dir + "/logs");
  if (options.log_dir.empty()) {
    throw Error::invalid_argument("run option 'log_dir' must not be empty");
  }
  if (options.log_dir[0] != '/') options.log_dir = current_directory() + "/" + options.log_dir;
  options.prepend_cwd = values.boolean("prepend_cwd");
  options.auto_set_cuda_visible_devices = values.boolean("auto_set_cuda_visible_devices");
  options.image_provider = values.str(kImageProvider);
  options.cancel_grace_period_s = values.number("cancel_grace_period");
  if (options.cancel_grace_period_s < 0) {
    throw Error::invalid_argument("run option 'cancel_grace_period' must be >= 0 seconds");
  }
  options.gpu_devices = values.strings("gpu_devices");
  if (options.gpu_devices && !options.auto_set_cuda_visible_devices) {
    throw Error::invalid_argument(
        "run option 'gpu_devices' only takes effect with "
        "auto_set_cuda_visible_devices=true; set that too or drop gpu_devices");
  }
  options.read_only_workdir = values.boolean("read_only_workdir");
  options.env_allow = values.strings("env_allow");
  if (options.env_allow) check_env_allow_patterns(*options.env_allow);
  return options;
}

}  // namespace sortie::local
