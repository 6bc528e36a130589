#include "app_plan.hpp"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sortie/dryrun_input.hpp>
#include <sortie/macros.hpp>
#include <sortie/plugin.hpp>

#include "engine.hpp"
#include "host_metadata.hpp"
#include "json_fields.hpp"
#include "labels.hpp"
#include "run_options.hpp"

extern char** environ;

namespace sortie::docker {
namespace {

constexpr const char* kRank0Env = "SORTIE_RANK0_HOST";
// ${free_port} (payloads.md P-12.1): every app has its own Docker network, so a fixed port never
// collides with another app's.
constexpr const char* kFreePort = "29500";
// Where every container sees its app's output directory (docs/docker-scheduler.md).
constexpr const char* kContainerOutputDir = "/sortie/output";

using EnvList = std::vector<std::pair<std::string, std::string>>;

[[noreturn]] void refuse(const std::string& what, const std::string& message) {
  throw Error::invalid_argument(what + ": " + message);
}

void set_env(EnvList& env, const std::string& name, std::string value) {
  for (auto& entry : env) {
    if (entry.first == name) {
      entry.second = std::move(value);
      return;
    }
  }
  env.emplace_back(name, std::move(value));
}

std::vector<std::string> string_list(const rapidjson::Value& value, const std::string& what) {
  std::vector<std::string> out;
  for (const rapidjson::Value& item : value.GetArray()) {
    if (!item.IsString()) refuse(what, "must list strings");
    out.emplace_back(item.GetString(), item.GetStringLength());
  }
  return out;
}

// Refuses what local_docker cannot honour; the SDK reader checked the rest.
void refuse_unsupported(const Role& role, const std::string& scheduler) {
  const std::string what = "role '" + role.name + "'";
  if (role.min_replicas && *role.min_replicas != role.num_replicas) {
    refuse(what, "field 'min_replicas' (" + std::to_string(*role.min_replicas) +
                     ") differs from num_replicas (" + std::to_string(role.num_replicas) + "); " +
                     scheduler + " is not elastic, so drop min_replicas");
  }
  if (role.max_retries > 0 && role.retry_policy != RetryPolicy::kReplica) {
    refuse(what, "retry_policy " + std::string(retry_policy_name(role.retry_policy)) +
                     " with max_retries " + std::to_string(role.max_retries) +
                     " is not supported by " + scheduler +
                     ": Docker restarts containers one by one, so only REPLICA retries exist "
                     "(what TorchX's local_docker does for any policy); set retry_policy: "
                     "REPLICA or max_retries: 0");
  }
  if (!role.base_image.empty()) {
    refuse(what, "field 'base_image' is not supported by " + scheduler +
                     "; put the image in 'image' (the docker image provider lays the workspace "
                     "over it)");
  }
  if (!role.resource.devices.empty()) {
    refuse(what, "resource 'devices' (" + role.resource.devices.front().first +
                     ", ...) is not supported by " + scheduler +
                     "; expose a device with a mount of type 'device' instead");
  }
  for (const Mount& mount : role.mounts) {
    struct stat info {};
    if (mount.type != MountType::kVolume && ::stat(mount.src.c_str(), &info) != 0) {
      refuse(what + " mount", std::string(mount_type_name(mount.type)) + " mount src '" +
                                  mount.src +
                                  "' does not exist on this host; create it or fix the path");
    }
  }
  // Refuses bad host metadata before anything is planned.
  read_host_ports(role);
  job_name_alias(role);
  for (const auto& [key, value] : role.metadata) {
    if (key.rfind(scheduler + ".", 0) == 0 || key.rfind("docker.", 0) == 0) {
      refuse(what,
             "metadata key '" + key + "' is not an option " + scheduler + " knows; remove it");
    }
  }
}

// The app's output directory, bind-mounted at one fixed path in every container: outputs land on
// the host, never in the workspace image a later container would start from. The host creates
// the directory when it submits the app, so it is not stat-ed here as a user's mount is.
void mount_output_dir(Role& role, const std::string& host_dir) {
  for (const Mount& mount : role.mounts) {
    if (mount.dst == kContainerOutputDir) {
      refuse("role '" + role.name + "' mount",
             std::string("dst '") + kContainerOutputDir +
                 "' is where local_docker mounts the app's output directory "
                 "($SORTIE_OUTPUT_DIR); mount elsewhere");
    }
  }
  Mount mount;
  mount.type = MountType::kBind;
  mount.src = host_dir;
  mount.dst = kContainerOutputDir;
  role.mounts.push_back(mount);
}

// Variables of this process whose names match one of the patterns, in environment order.
EnvList copied_environment(const std::vector<std::string>& patterns) {
  EnvList out;
  if (patterns.empty()) return out;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) continue;
    const std::string name(text.substr(0, eq));
    for (const std::string& pattern : patterns) {
      if (::fnmatch(pattern.c_str(), name.c_str(), 0) == 0) {
        set_env(out, name, std::string(text.substr(eq + 1)));
        break;
      }
    }
  }
  return out;
}

struct RoleImage {
  std::string image;
  std::string img_root;
  std::string workspace_image;  // set when the docker image provider built one
};

void write_create_body(plugins_common::JsonWriter& w, const Role& role, const RoleImage& image,
                       const std::string& hostname, const std::string& alias, const EnvList& env,
                       const std::vector<std::string>& args, const std::string& network,
                       const DockerOptions& options,
                       const std::vector<std::pair<const char*, std::string>>& labels) {
  w.StartObject();
  w.Key("Image");
  plugins_common::write_string(w, image.image);
  // No entrypoint keeps the image's ENTRYPOINT (a packaged image's own launcher); its CMD then
  // stays too unless the role passes args.
  if (!role.entrypoint.empty()) {
    w.Key("Entrypoint");
    w.StartArray();
    plugins_common::write_string(w, role.entrypoint);
    w.EndArray();
  }
  if (!role.entrypoint.empty() || !args.empty()) {
    w.Key("Cmd");
    w.StartArray();
    for (const std::string& arg : args) plugins_common::write_string(w, arg);
    w.EndArray();
  }
  w.Key("Env");
  w.StartArray();
  for (const auto& [name, value] : env) plugins_common::write_string(w, name + "=" + value);
  w.EndArray();
  w.Key("Hostname");
  plugins_common::write_string(w, hostname);
  w.Key("Labels");
  w.StartObject();
  for (const auto& [key, value] : labels) {
    w.Key(key);
    plugins_common::write_string(w, value);
  }
  w.EndObject();
  w.Key("StopTimeout");
  w.Int64(options.cancel_grace_seconds);
  if (!role.port_map.empty()) {
    w.Key("ExposedPorts");
    w.StartObject();
    for (const auto& [name, port] : role.port_map) {
      w.Key((std::to_string(port) + "/tcp").c_str());
      w.StartObject();
      w.EndObject();
    }
    w.EndObject();
  }

  w.Key("HostConfig");
  w.StartObject();
  w.Key("NetworkMode");
  plugins_common::write_string(w, network);
  w.Key("RestartPolicy");
  w.StartObject();
  w.Key("Name");
  w.String(role.max_retries > 0 ? "on-failure" : "no");
  if (role.max_retries > 0) {
    w.Key("MaximumRetryCount");
    w.Int64(role.max_retries);
  }
  w.EndObject();
  if (options.privileged) {
    w.Key("Privileged");
    w.Bool(true);
  }
  if (role.resource.cpu > 0) {
    w.Key("NanoCpus");
    w.Int64(static_cast<int64_t>(std::llround(role.resource.cpu * 1e9)));
  }
  if (role.resource.mem_mb > 0) {
    w.Key("Memory");
    w.Int64(role.resource.mem_mb * 1024 * 1024);
    w.Key("ShmSize");  // as TorchX: /dev/shm as large as the memory limit
    w.Int64(role.resource.mem_mb * 1024 * 1024);
  }
  if (role.resource.gpu > 0) {
    // `docker run --gpus N` with the driver named, so an Engine without the NVIDIA runtime says
    // which driver it lacks.
    w.Key("DeviceRequests");
    w.StartArray();
    w.StartObject();
    w.Key("Driver");
    w.String("nvidia");
    w.Key("Count");
    w.Int64(role.resource.gpu);
    w.Key("Capabilities");
    w.StartArray();
    w.StartArray();
    w.String("gpu");
    w.EndArray();
    w.EndArray();
    w.EndObject();
    w.EndArray();
  }
  if (!role.port_map.empty()) {
    // Each replica's ports are published on 127.0.0.1 at a port Docker picks, so replicas of one
    // role never collide; replicas reach each other directly on the app network. A port the
    // host asked to publish (XManager's DockerOptions(ports=)) is bound at its host port, on
    // 127.0.0.1 too: a job's port is not opened to the network unasked.
    const std::map<int64_t, int64_t> host_ports = read_host_ports(role);
    w.Key("PortBindings");
    w.StartObject();
    for (const auto& [name, port] : role.port_map) {
      const auto published = host_ports.find(port);
      w.Key((std::to_string(port) + "/tcp").c_str());
      w.StartArray();
      w.StartObject();
      w.Key("HostIp");
      w.String("127.0.0.1");
      w.Key("HostPort");
      w.String(published == host_ports.end() || published->second == 0
                   ? std::string()
                   : std::to_string(published->second));
      w.EndObject();
      w.EndArray();
    }
    w.EndObject();
  }
  bool any_mount = false;
  for (const Mount& mount : role.mounts) any_mount = any_mount || mount.type != MountType::kDevice;
  if (any_mount) {
    w.Key("Mounts");
    w.StartArray();
    for (const Mount& mount : role.mounts) {
      if (mount.type == MountType::kDevice) continue;
      w.StartObject();
      w.Key("Type");
      plugins_common::write_string(w, mount_type_name(mount.type));
      w.Key("Source");
      plugins_common::write_string(w, mount.src);
      w.Key("Target");
      plugins_common::write_string(w, mount.dst);
      w.Key("ReadOnly");
      w.Bool(mount.read_only);
      w.EndObject();
    }
    w.EndArray();
  }
  bool any_device = false;
  for (const Mount& mount : role.mounts)
    any_device = any_device || mount.type == MountType::kDevice;
  if (any_device) {
    w.Key("Devices");
    w.StartArray();
    for (const Mount& mount : role.mounts) {
      if (mount.type != MountType::kDevice) continue;
      w.StartObject();
      w.Key("PathOnHost");
      plugins_common::write_string(w, mount.src);
      w.Key("PathInContainer");
      plugins_common::write_string(w, mount.dst);
      w.Key("CgroupPermissions");
      plugins_common::write_string(w, mount.permissions);
      w.EndObject();
    }
    w.EndArray();
  }
  w.EndObject();

  w.Key("NetworkingConfig");
  w.StartObject();
  w.Key("EndpointsConfig");
  w.StartObject();
  w.Key(network.c_str());
  w.StartObject();
  w.Key("Aliases");
  w.StartArray();
  plugins_common::write_string(w, hostname);
  if (!alias.empty()) plugins_common::write_string(w, alias);
  w.EndArray();
  w.EndObject();
  w.EndObject();
  w.EndObject();
  w.EndObject();
}

std::string quoted_argv(const std::string& entrypoint, const std::vector<std::string>& args) {
  std::string text = entrypoint.empty() ? "(the image's ENTRYPOINT)" : "'" + entrypoint + "'";
  for (const std::string& arg : args) text += " '" + arg + "'";
  return text;
}

}  // namespace

std::string replica_hostname(std::string_view role, int64_t replica_id) {
  std::string label;
  for (const char c : role) {
    const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    label += ((lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9')) ? lower : '-';
  }
  while (!label.empty() && label.front() == '-') label.erase(label.begin());
  while (!label.empty() && label.back() == '-') label.pop_back();
  if (label.empty()) label = "role";
  const std::string suffix = "-" + std::to_string(replica_id);
  if (label.size() + suffix.size() > 63) label.resize(63 - suffix.size());
  return label + suffix;
}

std::string network_name(std::string_view app_id) { return "sortie-" + std::string(app_id); }

void write_role_layouts(plugins_common::JsonWriter& writer, const std::vector<RoleLayout>& roles) {
  writer.StartArray();
  for (const RoleLayout& role : roles) {
    writer.StartObject();
    writer.Key("name");
    plugins_common::write_string(writer, role.name);
    writer.Key("num_replicas");
    writer.Int64(role.num_replicas);
    writer.EndObject();
  }
  writer.EndArray();
}

std::vector<RoleLayout> read_role_layouts(const rapidjson::Value& object, const std::string& what) {
  std::vector<RoleLayout> roles;
  if (const rapidjson::Value* array = plugins_common::array_member(object, "roles", what)) {
    for (const rapidjson::Value& role : array->GetArray()) {
      roles.push_back({plugins_common::string_member(role, "name", what + " role"),
                       plugins_common::int_member(role, "num_replicas", what, 1)});
    }
  }
  return roles;
}

std::string build_dryrun(std::string_view input_text, const SchedulerContext& context) {
  const DryrunInput input = read_dryrun_input(input_text);
  const DockerOptions options = parse_run_options(input.cfg_json);

  AppPlan plan;
  plan.app_id = input.app_id;
  if (plan.app_id.empty() ||
      plan.app_id.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789_.-") != std::string::npos ||
      !std::isalnum(static_cast<unsigned char>(plan.app_id[0]))) {
    throw Error::invalid_argument(
        "app id '" + plan.app_id +
        "' must start with a letter or digit and use only letters, digits, '_', "
        "'.' and '-' (it names containers and a network)");
  }
  plan.app_name = input.app.name;
  plan.session = input.session.empty() ? context.session : input.session;
  plan.network = network_name(plan.app_id);
  plan.cancel_grace_seconds = options.cancel_grace_seconds;

  std::vector<Role> roles = input.app.roles;
  for (size_t r = 0; r < roles.size(); ++r) {
    refuse_unsupported(roles[r], context.scheduler_name);
    if (!input.app.output_dir.empty()) mount_output_dir(roles[r], input.app.output_dir);
    for (size_t i = 0; i < r; ++i) {
      if (replica_hostname(roles[i].name, 0) == replica_hostname(roles[r].name, 0)) {
        throw Error::invalid_argument("roles '" + roles[i].name + "' and '" + roles[r].name +
                                      "' would both answer to host name " +
                                      replica_hostname(roles[i].name, 0) + "; rename one of them");
      }
    }
  }

  // Images: the image provider's workspace image when it ran, else role.image.
  std::vector<RoleImage> role_images;
  for (const Role& role : roles) {
    RoleImage image{role.image, "", ""};
    if (const ProvidedImage* provided = input.image_of(role.name)) {
      image.img_root = provided->img_root;
      image.workspace_image = provided->image;
      if (image.workspace_image.empty()) {
        throw Error::invalid_argument(
            "images." + role.name +
            ": the image provider gave no 'image'; local_docker needs a container "
            "image (use image_provider=docker, or empty to run role.image)");
      }
      image.image = image.workspace_image;
    }
    if (image.image.empty()) {
      refuse("role '" + role.name + "'", "field 'image' is required (a container image)");
    }
    check_image_reference(image.image, "role '" + role.name + "' image");
    if (!options.image_repo.empty()) {
      if (image.workspace_image.empty()) {
        throw Error::invalid_argument(
            "run option image_repo pushes the workspace image that the docker image "
            "provider builds, but role '" +
            role.name + "' has none; drop image_repo or use image_provider=docker");
      }
      const std::string tag = parse_image_reference(image.workspace_image).tag;
      const std::string pushed = options.image_repo + ":" + tag;
      bool known = false;
      for (const PushPlan& push : plan.pushes) known = known || push.source == image.image;
      if (!known) plan.pushes.push_back({image.image, options.image_repo, tag});
      image.image = pushed;
    }
    if (std::find(plan.images.begin(), plan.images.end(), image.image) == plan.images.end()) {
      plan.images.push_back(image.image);
    }
    role_images.push_back(std::move(image));
  }

  const EnvList copied = copied_environment(options.copy_env);
  const std::string rank0_host = replica_hostname(roles.front().name, 0);
  std::string text = context.scheduler_name + " app " + plan.app_id + " on network " +
                     plan.network + " (cancel grace period " +
                     std::to_string(plan.cancel_grace_seconds) + " s)\n";
  for (const PushPlan& push : plan.pushes) {
    text += "push " + push.source + " as " + push.repository + ":" + push.tag + "\n";
  }

  rapidjson::StringBuffer buffer;
  plugins_common::JsonWriter w(buffer);
  w.StartObject();
  w.Key("schema");
  w.String("sortie.dryrun/1");
  w.Key("app_id");
  plugins_common::write_string(w, plan.app_id);
  w.Key("request");
  w.StartObject();
  w.Key("app_id");
  plugins_common::write_string(w, plan.app_id);
  w.Key("app_name");
  plugins_common::write_string(w, plan.app_name);
  w.Key("session");
  plugins_common::write_string(w, plan.session);
  w.Key("cancel_grace_period");
  w.Int64(plan.cancel_grace_seconds);
  w.Key("network");
  w.StartObject();
  w.Key("Name");
  plugins_common::write_string(w, plan.network);
  w.Key("Driver");
  w.String("bridge");
  w.Key("CheckDuplicate");
  w.Bool(true);
  w.Key("Labels");
  w.StartObject();
  w.Key(labels::kScheduler);
  plugins_common::write_string(w, context.scheduler_name);
  w.Key(labels::kSession);
  plugins_common::write_string(w, plan.session);
  w.Key(labels::kAppId);
  plugins_common::write_string(w, plan.app_id);
  w.EndObject();
  w.EndObject();
  w.Key("images");
  w.StartArray();
  for (const std::string& image : plan.images) plugins_common::write_string(w, image);
  w.EndArray();
  w.Key("pushes");
  w.StartArray();
  for (const PushPlan& push : plan.pushes) {
    w.StartObject();
    w.Key("source");
    plugins_common::write_string(w, push.source);
    w.Key("repository");
    plugins_common::write_string(w, push.repository);
    w.Key("tag");
    plugins_common::write_string(w, push.tag);
    w.EndObject();
  }
  w.EndArray();
  std::vector<RoleLayout> layouts;
  for (const Role& role : roles) layouts.push_back({role.name, role.num_replicas});
  w.Key("roles");
  write_role_layouts(w, layouts);
  w.Key("containers");
  w.StartArray();
  for (size_t r = 0; r < roles.size(); ++r) {
    const Role& role = roles[r];
    for (int64_t id = 0; id < role.num_replicas; ++id) {
      const std::string hostname = replica_hostname(role.name, id);
      const std::string name = plan.app_id + "-" + hostname;
      MacroValues macros;
      macros.set("app_id", plan.app_id)
          .set("replica_id", std::to_string(id))
          .set("num_replicas", std::to_string(role.num_replicas))
          .set("role_name", role.name)
          .set("img_root", role_images[r].img_root)
          .set("rank0_env", kRank0Env)
          .set("rank0_host", rank0_host)
          .set("free_port", kFreePort);
      if (!input.app.output_dir.empty()) macros.set(kOutputDirMacro, kContainerOutputDir);
      std::vector<std::string> args;
      for (const std::string& arg : role.args) args.push_back(macros.apply(arg));
      EnvList env = copied;
      for (const auto& [key, value] : options.env) set_env(env, key, value);
      for (const auto& [key, value] : role.env) set_env(env, key, macros.apply(value));
      set_env(env, "SORTIE_APP_ID", plan.app_id);
      set_env(env, "SORTIE_ROLE_NAME", role.name);
      set_env(env, "SORTIE_REPLICA_ID", std::to_string(id));
      set_env(env, "SORTIE_NUM_REPLICAS", std::to_string(role.num_replicas));
      if (!input.app.output_dir.empty()) set_env(env, kOutputDirEnv, kContainerOutputDir);
      set_env(env, kRank0Env, rank0_host);
      set_env(env, "PYTHONUNBUFFERED", "x");
      const std::vector<std::pair<const char*, std::string>> container_labels = {
          {labels::kScheduler, context.scheduler_name},
          {labels::kSession, plan.session},
          {labels::kAppId, plan.app_id},
          {labels::kAppName, plan.app_name},
          {labels::kRole, role.name},
          {labels::kRoleIndex, std::to_string(r)},
          {labels::kReplicaId, std::to_string(id)},
          {labels::kNumReplicas, std::to_string(role.num_replicas)}};

      w.StartObject();
      w.Key("name");
      plugins_common::write_string(w, name);
      w.Key("hostname");
      plugins_common::write_string(w, hostname);
      w.Key("role");
      plugins_common::write_string(w, role.name);
      w.Key("replica_id");
      w.Int64(id);
      w.Key("create");
      const std::string alias = id == 0 ? job_name_alias(role) : std::string();
      write_create_body(w, role, role_images[r], hostname, alias, env, args, plan.network, options,
                        container_labels);
      w.EndObject();

      text += "\ncontainer " + name + " (role " + role.name + " replica " + std::to_string(id) +
              " of " + std::to_string(role.num_replicas) + ", host name " + hostname +
              (alias.empty() ? "" : ", also " + alias) + ")\n  image: " + role_images[r].image +
              "\n  argv:  " + quoted_argv(role.entrypoint, args) + "\n  restart: " +
              (role.max_retries > 0 ? "on-failure, at most " + std::to_string(role.max_retries)
                                    : std::string("no")) +
              "\n";
      if (role.resource.cpu > 0) text += "  cpu: " + std::to_string(role.resource.cpu) + "\n";
      if (role.resource.mem_mb > 0)
        text += "  memory: " + std::to_string(role.resource.mem_mb) + " MB\n";
      if (role.resource.gpu > 0)
        text += "  gpus: " + std::to_string(role.resource.gpu) + " (device request)\n";
      for (const Mount& mount : role.mounts) {
        text += "  " + std::string(mount_type_name(mount.type)) + " mount: " + mount.src + " -> " +
                mount.dst + (mount.read_only ? " (read-only)" : "") + "\n";
      }
      const std::map<int64_t, int64_t> host_ports = read_host_ports(role);
      for (const auto& [port_name, port] : role.port_map) {
        const auto published = host_ports.find(port);
        const bool fixed = published != host_ports.end() && published->second != 0;
        text += "  port " + port_name + ": " + std::to_string(port) + "/tcp on 127.0.0.1:" +
                (fixed ? std::to_string(published->second) : std::string("<any>")) + "\n";
      }
      text += "  env:\n";
      for (const auto& [key, value] : env) text += "    " + key + "=" + value + "\n";
    }
  }
  w.EndArray();
  w.EndObject();
  w.Key("text");
  plugins_common::write_string(w, text);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

AppPlan read_plan(const rapidjson::Value& request) {
  const std::string what = "local_docker request";
  AppPlan plan;
  plan.app_id = plugins_common::string_member(request, "app_id", what);
  plan.app_name = plugins_common::string_member(request, "app_name", what);
  plan.session = plugins_common::string_member(request, "session", what);
  plan.cancel_grace_seconds = plugins_common::int_member(request, "cancel_grace_period", what, 10);
  const rapidjson::Value* network = plugins_common::object_member(request, "network", what);
  if (network == nullptr) throw Error::invalid_argument(what + ": 'network' is required");
  plan.network = plugins_common::string_member(*network, "Name", what + " network");
  if (const rapidjson::Value* images = plugins_common::array_member(request, "images", what)) {
    plan.images = string_list(*images, what + " images");
  }
  if (const rapidjson::Value* pushes = plugins_common::array_member(request, "pushes", what)) {
    for (const rapidjson::Value& push : pushes->GetArray()) {
      plan.pushes.push_back({plugins_common::string_member(push, "source", what + " push"),
                             plugins_common::string_member(push, "repository", what + " push"),
                             plugins_common::string_member(push, "tag", what + " push")});
    }
  }
  plan.roles = read_role_layouts(request, what);
  const rapidjson::Value* containers = plugins_common::array_member(request, "containers", what);
  if (containers == nullptr || containers->Empty()) {
    throw Error::invalid_argument(what + ": 'containers' is required");
  }
  for (const rapidjson::Value& container : containers->GetArray()) {
    ContainerPlan item;
    item.name = plugins_common::string_member(container, "name", what + " container");
    item.hostname = plugins_common::string_member(container, "hostname", what + " container");
    item.role = plugins_common::string_member(container, "role", what + " container");
    item.replica_id = plugins_common::int_member(container, "replica_id", what + " container", 0);
    const rapidjson::Value* body =
        plugins_common::object_member(container, "create", what + " container");
    if (body == nullptr) {
      throw Error::invalid_argument(what + ": container '" + item.name + "' has no 'create'");
    }
    item.create_body = plugins_common::to_json_text(*body);
    plan.containers.push_back(std::move(item));
  }
  return plan;
}

}  // namespace sortie::docker
