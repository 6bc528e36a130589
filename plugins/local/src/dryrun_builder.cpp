#include "dryrun_builder.hpp"

#include <algorithm>
#include <cstdlib>
#include <sortie/dryrun_input.hpp>
#include <sortie/macros.hpp>
#include <sortie/plugin.hpp>

#include "environment_allow_list.hpp"
#include "gpu_discovery.hpp"
#include "image_providers.hpp"
#include "json_fields.hpp"
#include "launch_request.hpp"
#include "port_leases.hpp"

namespace sortie::local {
namespace {

constexpr const char* kRank0Env = "SORTIE_RANK0_HOST";
constexpr const char* kRank0Host = "localhost";
// A replica's PATH base when neither its role nor the submitter's environment gives one.
constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

[[noreturn]] void refuse(const std::string& role_what, const std::string& message) {
  throw Error::invalid_argument(role_what + ": " + message);
}

void set_env(std::vector<std::pair<std::string, std::string>>& env, const std::string& name,
             std::string value) {
  for (auto& entry : env) {
    if (entry.first == name) {
      entry.second = std::move(value);
      return;
    }
  }
  env.emplace_back(name, std::move(value));
}

// Refuses what a process scheduler cannot honour; the SDK reader checked the rest.
void refuse_unsupported(const Role& role, const std::string& scheduler) {
  const std::string what = "role '" + role.name + "'";
  check_path_safe_id(role.name, what + " name");
  if (role.entrypoint.empty()) refuse(what, "field 'entrypoint' is required");
  if (role.min_replicas && *role.min_replicas != role.num_replicas) {
    refuse(what, "field 'min_replicas' (" + std::to_string(*role.min_replicas) +
                     ") differs from num_replicas (" + std::to_string(role.num_replicas) + "); " +
                     scheduler + " is not elastic, so drop min_replicas");
  }
  if (!role.base_image.empty()) {
    refuse(what, "field 'base_image' is not supported by " + scheduler +
                     " (it runs processes, not layered images); remove it");
  }
  if (!role.mounts.empty()) {
    refuse(what, "field 'mounts' is not supported by " + scheduler +
                     " (processes already see the host's file system); remove the mounts or use "
                     "a container scheduler");
  }
  for (const auto& [key, value] : role.metadata) {
    if (key.rfind(scheduler + ".", 0) == 0 || key.rfind("local.", 0) == 0) {
      refuse(what,
             "metadata key '" + key + "' is not an option " + scheduler + " knows; remove it");
    }
  }
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

}  // namespace

void check_path_safe_id(std::string_view id, std::string_view what) {
  bool safe = !id.empty() && id.front() != '.';
  for (const char c : id) {
    safe = safe && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.');
  }
  if (!safe) {
    throw Error::invalid_argument(
        std::string(what) + " '" + std::string(id) +
        "' must be non-empty, use only letters, digits, '.', '-', '_' and not start "
        "with '.' (it names a directory)");
  }
}

std::string build_dryrun(std::string_view input_text, const SchedulerContext& context) {
  const DryrunInput input = read_dryrun_input(input_text);
  const LocalOptions options =
      parse_run_options(input.cfg_json, context.mode, context.scheduler_name, context.state_dir);

  LaunchRequest request;
  request.app_id = input.app_id;
  check_path_safe_id(request.app_id, "app id");
  request.app_name = input.app.name;
  request.session = input.session.empty() ? context.session : input.session;
  check_path_safe_id(request.session, "session");
  request.app_dir = options.log_dir + "/" + request.session + "/" + request.app_id;
  request.cancel_grace_period_s = options.cancel_grace_period_s;
  request.inherit_environment = !options.env_allow.has_value();
  // With env_allow, each replica's env lists the submitter's variables it gets, first, so that
  // the role's env and sortie's own override them as they would the inherited ones.
  const std::vector<std::pair<std::string, std::string>> allowed =
      options.env_allow ? allowed_environment(*options.env_allow)
                        : std::vector<std::pair<std::string, std::string>>{};
  const bool submitter_path_passes = !options.env_allow || env_allowed("PATH", *options.env_allow);

  const std::vector<Role>& roles = input.app.roles;
  for (const Role& role : roles) refuse_unsupported(role, context.scheduler_name);

  std::vector<std::string> gpu_devices;
  size_t next_gpu = 0;
  if (options.auto_set_cuda_visible_devices) {
    gpu_devices = discover_gpu_devices(options.gpu_devices);
    int64_t wanted = 0;
    std::string breakdown;
    for (const Role& role : roles) {
      if (role.resource.gpu <= 0) continue;
      wanted += role.resource.gpu * role.num_replicas;
      breakdown += (breakdown.empty() ? "" : ", ") + role.name + ": " +
                   std::to_string(role.num_replicas) + " x " + std::to_string(role.resource.gpu);
    }
    if (wanted > static_cast<int64_t>(gpu_devices.size())) {
      throw Error::invalid_argument(
          "auto_set_cuda_visible_devices: the app asks for " + std::to_string(wanted) + " GPUs (" +
          breakdown + ") but this host has " + std::to_string(gpu_devices.size()) +
          " (set run option gpu_devices or SORTIE_GPU_DEVICES if discovery is wrong)");
    }
  }

  for (const Role& role : roles) {
    ImageLocation location;
    if (const ProvidedImage* image = input.image_of(role.name)) {
      location.img_root = image->img_root;
      location.cwd = image->cwd;
    } else {
      location = resolve_image(context.mode, role.name, role.image);
    }
    if (options.read_only_workdir &&
        std::find(request.read_only_dirs.begin(), request.read_only_dirs.end(),
                  location.img_root) == request.read_only_dirs.end()) {
      request.read_only_dirs.push_back(location.img_root);
    }
    RoleLaunch launch;
    launch.name = role.name;
    launch.max_retries = role.max_retries;
    launch.retry_policy = role.retry_policy;
    for (int64_t id = 0; id < role.num_replicas; ++id) {
      MacroValues macros;
      macros.set("app_id", request.app_id)
          .set("replica_id", std::to_string(id))
          .set("num_replicas", std::to_string(role.num_replicas))
          .set("role_name", role.name)
          .set("img_root", location.img_root)
          .set("rank0_env", kRank0Env)
          .set("rank0_host", kRank0Host);
      if (!input.app.output_dir.empty()) macros.set(kOutputDirMacro, input.app.output_dir);
      ReplicaLaunch replica;
      replica.id = static_cast<uint32_t>(id);
      replica.cwd = location.cwd;
      replica.argv.push_back(role.entrypoint);
      for (const std::string& arg : role.args) replica.argv.push_back(macros.apply(arg));
      std::string base_path;
      for (const auto& [name, value] : allowed) set_env(replica.env, name, value);
      for (const auto& [name, value] : role.env) {
        if (name == "PATH") {
          base_path = macros.apply(value);
        } else {
          set_env(replica.env, name, macros.apply(value));
        }
      }
      if (base_path.empty() && submitter_path_passes) {
        const char* inherited = std::getenv("PATH");
        base_path = inherited != nullptr ? inherited : "";
      }
      if (base_path.empty()) base_path = kDefaultPath;
      set_env(replica.env, "SORTIE_APP_ID", request.app_id);
      set_env(replica.env, "SORTIE_ROLE_NAME", role.name);
      set_env(replica.env, "SORTIE_REPLICA_ID", std::to_string(id));
      set_env(replica.env, "SORTIE_NUM_REPLICAS", std::to_string(role.num_replicas));
      set_env(replica.env, "SORTIE_METRICS_FILE",
              metrics_file_path(request.app_dir, role.name, static_cast<uint32_t>(id)));
      if (!input.app.output_dir.empty()) {
        set_env(replica.env, kOutputDirEnv, input.app.output_dir);
      }
      set_env(replica.env, kRank0Env, kRank0Host);
      set_env(replica.env, "PYTHONUNBUFFERED", "x");
      set_env(
          replica.env, "PATH",
          options.prepend_cwd ? location.cwd + ":" + base_path : base_path + ":" + location.cwd);
      if (options.auto_set_cuda_visible_devices && role.resource.gpu > 0) {
        std::string visible;
        for (int64_t g = 0; g < role.resource.gpu; ++g) {
          visible += (g == 0 ? "" : ",") + gpu_devices[next_gpu++];
        }
        set_env(replica.env, "CUDA_VISIBLE_DEVICES", visible);
      }
      launch.replicas.push_back(std::move(replica));
    }
    request.roles.push_back(std::move(launch));
  }

  std::string text = context.scheduler_name + " app " + request.app_id + " in " + request.app_dir +
                     " (cancel grace period " + std::to_string(request.cancel_grace_period_s) +
                     " s)\n";
  if (uses_free_port(request)) {
    text += "${free_port}: a port of this host that no live app holds, chosen at submission\n";
  }
  if (options.env_allow) {
    std::string listed;
    for (const std::string& pattern : *options.env_allow) {
      listed += (listed.empty() ? "" : ", ") + pattern;
    }
    text += "environment: each replica gets only its env below, not the submitter's (env_allow: " +
            listed + "; SORTIE_* always passes)\n";
  }
  for (const std::string& dir : request.read_only_dirs) {
    text +=
        "read-only to the app (a read-only bind mount in its own mount namespace): " + dir + "\n";
  }
  for (const RoleLaunch& role : request.roles) {
    for (const ReplicaLaunch& replica : role.replicas) {
      text += "\nrole " + role.name + " replica " + std::to_string(replica.id) + " of " +
              std::to_string(role.replicas.size()) + " (max_retries " +
              std::to_string(role.max_retries) + ", retry_policy " +
              std::string(retry_policy_name(role.retry_policy)) + ")\n  cwd:  " + replica.cwd +
              "\n  argv:";
      for (const std::string& arg : replica.argv) text += " " + quoted(arg);
      text += "\n  env:\n";
      for (const auto& [name, value] : replica.env) text += "    " + name + "=" + value + "\n";
      text += "  logs: " + replica_dir(request.app_dir, role.name, replica.id) +
              "/{stdout,stderr,combined}.log\n";
    }
  }

  rapidjson::StringBuffer buffer;
  plugins_common::JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("schema");
  writer.String("sortie.dryrun/1");
  writer.Key("app_id");
  plugins_common::write_string(writer, request.app_id);
  writer.Key("request");
  write_launch_request(writer, request);
  writer.Key("text");
  plugins_common::write_string(writer, text);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace sortie::local
