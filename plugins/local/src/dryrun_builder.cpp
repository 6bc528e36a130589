#include "dryrun_builder.hpp"

#include <cstdlib>
#include <sortie/macros.hpp>
#include <sortie/plugin.hpp>

#include "gpu_discovery.hpp"
#include "image_providers.hpp"
#include "json_fields.hpp"
#include "launch_request.hpp"

namespace sortie::local {
namespace {

constexpr const char* kRank0Env = "SORTIE_RANK0_HOST";
constexpr const char* kRank0Host = "localhost";

[[noreturn]] void refuse(const std::string& role_what, const std::string& message) {
  throw Error(Code::kInvalidArgument, role_what + ": " + message);
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

// The parts of a role that the local scheduler reads, after refusing what it cannot do.
struct RoleInput {
  std::string name;
  std::string image;
  std::string entrypoint;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  int64_t num_replicas = 1;
  int64_t max_retries = 0;
  RetryPolicy retry_policy = RetryPolicy::kApplication;
  int64_t gpus = 0;
};

RoleInput read_role(const rapidjson::Value& role, const std::string& scheduler) {
  RoleInput input;
  input.name = string_member(role, "name", "app role");
  const std::string what = "role '" + input.name + "'";
  check_path_safe_id(input.name, what + " name");
  input.image = string_member(role, "image", what);
  input.entrypoint = string_member(role, "entrypoint", what);
  if (input.entrypoint.empty()) refuse(what, "field 'entrypoint' is required");
  if (const rapidjson::Value* args = array_member(role, "args", what)) {
    for (const rapidjson::Value& arg : args->GetArray()) {
      if (!arg.IsString()) refuse(what, "field 'args' must list strings");
      input.args.emplace_back(arg.GetString(), arg.GetStringLength());
    }
  }
  if (const rapidjson::Value* env = object_member(role, "env", what)) {
    for (const auto& entry : env->GetObject()) {
      if (!entry.value.IsString()) refuse(what, "field 'env' values must be strings");
      input.env.emplace_back(std::string(entry.name.GetString(), entry.name.GetStringLength()),
                             std::string(entry.value.GetString(), entry.value.GetStringLength()));
    }
  }
  input.num_replicas = int_member(role, "num_replicas", what, 1);
  if (input.num_replicas < 1) refuse(what, "field 'num_replicas' must be at least 1");
  const int64_t min_replicas = int_member(role, "min_replicas", what, input.num_replicas);
  if (min_replicas != input.num_replicas) {
    refuse(what, "field 'min_replicas' (" + std::to_string(min_replicas) +
                     ") differs from num_replicas (" + std::to_string(input.num_replicas) + "); " +
                     scheduler + " is not elastic, so drop min_replicas");
  }
  input.max_retries = int_member(role, "max_retries", what, 0);
  if (input.max_retries < 0) refuse(what, "field 'max_retries' must be >= 0");
  input.retry_policy = parse_retry_policy(string_member(role, "retry_policy", what), what);
  if (!string_member(role, "base_image", what).empty()) {
    refuse(what, "field 'base_image' is not supported by " + scheduler +
                     " (it runs processes, not layered images); remove it");
  }
  if (const rapidjson::Value* mounts = array_member(role, "mounts", what);
      mounts != nullptr && !mounts->Empty()) {
    refuse(what, "field 'mounts' is not supported by " + scheduler +
                     " (processes already see the host's file system); remove the mounts or use "
                     "a container scheduler");
  }
  if (const rapidjson::Value* metadata = object_member(role, "metadata", what)) {
    for (const auto& entry : metadata->GetObject()) {
      const std::string_view key(entry.name.GetString(), entry.name.GetStringLength());
      if (key.rfind(scheduler + ".", 0) == 0 || key.rfind("local.", 0) == 0) {
        refuse(what, "metadata key '" + std::string(key) + "' is not an option " + scheduler +
                         " knows; remove it");
      }
    }
  }
  if (const rapidjson::Value* resource = object_member(role, "resource", what)) {
    input.gpus = static_cast<int64_t>(number_member(*resource, "gpu", what + " resource", -1));
  }
  return input;
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
    throw Error(Code::kInvalidArgument,
                std::string(what) + " '" + std::string(id) +
                    "' must be non-empty, use only letters, digits, '.', '-', '_' and not start "
                    "with '.' (it names a directory)");
  }
}

std::string build_dryrun(std::string_view input_text, const SchedulerContext& context) {
  const rapidjson::Document input = parse_object(input_text, "sortie.dryrun_input/1");
  const std::string what = "sortie.dryrun_input/1";
  const LocalOptions options =
      parse_run_options(find_member(input, "cfg"), context.mode, context.state_dir);
  const rapidjson::Value* app = object_member(input, "app", what);
  if (app == nullptr) throw Error(Code::kInvalidArgument, what + ": member 'app' is required");

  LaunchRequest request;
  request.app_id = string_member(input, "app_id", what);
  check_path_safe_id(request.app_id, "app id");
  request.app_name = string_member(*app, "name", "app");
  request.session = string_member(input, "session", what, context.session);
  check_path_safe_id(request.session, "session");
  request.app_dir = options.log_dir + "/" + request.session + "/" + request.app_id;
  request.cancel_grace_period_s = options.cancel_grace_period_s;

  std::vector<RoleInput> roles;
  const rapidjson::Value* role_values = array_member(*app, "roles", "app");
  if (role_values == nullptr || role_values->Empty()) {
    throw Error(Code::kInvalidArgument, "app '" + request.app_name + "' has no roles");
  }
  for (const rapidjson::Value& role : role_values->GetArray()) {
    roles.push_back(read_role(role, context.scheduler_name));
    for (size_t i = 0; i + 1 < roles.size(); ++i) {
      if (roles[i].name == roles.back().name) {
        throw Error(Code::kInvalidArgument, "role name '" + roles.back().name + "' is used twice");
      }
    }
  }

  std::vector<std::string> gpu_devices;
  size_t next_gpu = 0;
  if (options.auto_set_cuda_visible_devices) {
    gpu_devices = discover_gpu_devices(options.gpu_devices);
    int64_t wanted = 0;
    std::string breakdown;
    for (const RoleInput& role : roles) {
      if (role.gpus <= 0) continue;
      wanted += role.gpus * role.num_replicas;
      breakdown += (breakdown.empty() ? "" : ", ") + role.name + ": " +
                   std::to_string(role.num_replicas) + " x " + std::to_string(role.gpus);
    }
    if (wanted > static_cast<int64_t>(gpu_devices.size())) {
      throw Error(Code::kInvalidArgument,
                  "auto_set_cuda_visible_devices: the app asks for " + std::to_string(wanted) +
                      " GPUs (" + breakdown + ") but this host has " +
                      std::to_string(gpu_devices.size()) +
                      " (set run option gpu_devices or SORTIE_GPU_DEVICES if discovery is wrong)");
    }
  }

  const rapidjson::Value* images = object_member(input, "images", what);
  for (const RoleInput& role : roles) {
    ImageLocation location;
    const rapidjson::Value* image =
        images != nullptr ? object_member(*images, role.name.c_str(), "images") : nullptr;
    if (image != nullptr) {
      location.img_root = string_member(*image, "img_root", "images." + role.name);
      location.cwd = string_member(*image, "cwd", "images." + role.name, location.img_root);
    } else {
      location = resolve_image(context.mode, role.name, role.image);
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
      ReplicaLaunch replica;
      replica.id = static_cast<uint32_t>(id);
      replica.cwd = location.cwd;
      replica.argv.push_back(role.entrypoint);
      for (const std::string& arg : role.args) replica.argv.push_back(macros.apply(arg));
      std::string base_path;
      for (const auto& [name, value] : role.env) {
        if (name == "PATH") {
          base_path = macros.apply(value);
        } else {
          set_env(replica.env, name, macros.apply(value));
        }
      }
      if (base_path.empty()) {
        const char* inherited = std::getenv("PATH");
        base_path = inherited != nullptr ? inherited : "/usr/local/bin:/usr/bin:/bin";
      }
      set_env(replica.env, "SORTIE_APP_ID", request.app_id);
      set_env(replica.env, "SORTIE_ROLE_NAME", role.name);
      set_env(replica.env, "SORTIE_REPLICA_ID", std::to_string(id));
      set_env(replica.env, "SORTIE_NUM_REPLICAS", std::to_string(role.num_replicas));
      set_env(replica.env, kRank0Env, kRank0Host);
      set_env(replica.env, "PYTHONUNBUFFERED", "x");
      set_env(
          replica.env, "PATH",
          options.prepend_cwd ? location.cwd + ":" + base_path : base_path + ":" + location.cwd);
      if (options.auto_set_cuda_visible_devices && role.gpus > 0) {
        std::string visible;
        for (int64_t g = 0; g < role.gpus; ++g) {
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
  JsonWriter writer(buffer);
  writer.StartObject();
  writer.Key("schema");
  writer.String("sortie.dryrun/1");
  writer.Key("app_id");
  write_string(writer, request.app_id);
  writer.Key("request");
  write_launch_request(writer, request);
  writer.Key("text");
  write_string(writer, text);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace sortie::local
