#include "run_options.hpp"

#include <unistd.h>

#include <sortie/plugin.hpp>

#include "json_fields.hpp"

namespace sortie::local {
namespace {

struct OptionSpec {
  const char* name;
  const char* type;
  const char* help;
};

constexpr OptionSpec kOptions[] = {
    {"log_dir", "str",
     "base directory of app logs and state; apps go to <log_dir>/<session>/<app_id>/ "
     "(default: <state_dir>/logs)"},
    {"prepend_cwd", "bool",
     "put the role's working directory first on PATH instead of last (default: false)"},
    {"auto_set_cuda_visible_devices", "bool",
     "give each replica, in role order, its own contiguous block of resource.gpu devices in "
     "CUDA_VISIBLE_DEVICES (default: false)"},
    {"image_provider", "str",
     "image provider that resolves each role's image before dryrun (default: cwd for local_cwd, "
     "dir for local_dir)"},
    {"cancel_grace_period", "float",
     "seconds between SIGTERM and SIGKILL when replicas are stopped (default: 10)"},
    {"gpu_devices", "list",
     "GPU device ids to hand out with auto_set_cuda_visible_devices, overriding discovery "
     "(SORTIE_GPU_DEVICES, /proc/driver/nvidia/gpus, nvidia-smi -L)"},
};

std::string default_image_provider(ImageMode mode) {
  return mode == ImageMode::kCwd ? "cwd" : "dir";
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
  rapidjson::StringBuffer buffer;
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("schema");
  writer.String("sortie.runopts/1");
  writer.Key("options");
  writer.StartArray();
  for (const OptionSpec& option : kOptions) {
    const std::string_view name = option.name;
    writer.StartObject();
    writer.Key("name");
    writer.String(option.name);
    writer.Key("type");
    writer.String(option.type);
    writer.Key("default");
    if (name == "prepend_cwd" || name == "auto_set_cuda_visible_devices") {
      writer.Bool(false);
    } else if (name == "image_provider") {
      write_string(writer, default_image_provider(mode));
    } else if (name == "cancel_grace_period") {
      writer.Double(10.0);
    } else {
      writer.Null();
    }
    writer.Key("required");
    writer.Bool(false);
    writer.Key("help");
    writer.String(option.help);
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

LocalOptions parse_run_options(const rapidjson::Value* cfg, ImageMode mode,
                               const std::string& state_dir) {
  LocalOptions options;
  options.log_dir = state_dir + "/logs";
  options.image_provider = default_image_provider(mode);
  if (cfg == nullptr) return options;
  if (!cfg->IsObject()) throw Error::invalid_argument("dryrun input: 'cfg' must be an object");
  const std::string what = "run option";
  for (const auto& member : cfg->GetObject()) {
    const std::string name(member.name.GetString(), member.name.GetStringLength());
    bool known = false;
    for (const OptionSpec& option : kOptions) known = known || name == option.name;
    if (!known) {
      throw Error::invalid_argument(
          "run option '" + name +
          "' is not supported by the local scheduler; see `sortie runopts local_cwd`");
    }
  }
  options.log_dir = string_member(*cfg, "log_dir", what, options.log_dir);
  if (options.log_dir.empty()) {
    throw Error::invalid_argument("run option 'log_dir' must not be empty");
  }
  if (options.log_dir[0] != '/') options.log_dir = current_directory() + "/" + options.log_dir;
  options.prepend_cwd = bool_member(*cfg, "prepend_cwd", what, false);
  options.auto_set_cuda_visible_devices =
      bool_member(*cfg, "auto_set_cuda_visible_devices", what, false);
  options.image_provider = string_member(*cfg, "image_provider", what, options.image_provider);
  options.cancel_grace_period_s = number_member(*cfg, "cancel_grace_period", what, 10.0);
  if (options.cancel_grace_period_s < 0) {
    throw Error::invalid_argument("run option 'cancel_grace_period' must be >= 0 seconds");
  }
  if (const rapidjson::Value* devices = array_member(*cfg, "gpu_devices", what)) {
    std::vector<std::string> ids;
    for (const rapidjson::Value& id : devices->GetArray()) {
      if (!id.IsString()) {
        throw Error::invalid_argument("run option 'gpu_devices' must list strings");
      }
      ids.emplace_back(id.GetString(), id.GetStringLength());
    }
    options.gpu_devices = std::move(ids);
    if (!options.auto_set_cuda_visible_devices) {
      throw Error::invalid_argument(
          "run option 'gpu_devices' only takes effect with "
          "auto_set_cuda_visible_devices=true; set that too or drop gpu_devices");
    }
  }
  return options;
}

}  // namespace sortie::local
