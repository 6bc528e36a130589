#include "custom_job_builder.hpp"

#include <algorithm>
#include <sortie/dryrun_input.hpp>
#include <sortie/macros.hpp>
#include <sortie/plugin.hpp>
#include <vector>

#include "connection.hpp"
#include "image_push.hpp"
#include "json_fields.hpp"
#include "late_bindings.hpp"
#include "machine_table.hpp"
#include "run_options.hpp"

namespace sortie::vertex {
namespace {

using Alloc = rapidjson::Document::AllocatorType;
using image_push::check_local_image_name;
using image_push::ImagePush;
using image_push::ImageReference;
using image_push::parse_push_target;

// Vertex AI runs the chief, workers, parameter servers and an evaluator: four pools at most.
constexpr size_t kMaxWorkerPools = 4;
constexpr const char* kMetadataPrefixes[] = {"vertex.", "caip."};
constexpr const char* kMetadataKeys[] = {"accelerator", "accelerator_count", "tpu_topology",
                                         "machine_type", "push_image_tag"};
// ${free_port} (payloads.md P-12.1): every replica is its own machine, so a fixed port never
// collides with another app's.
constexpr const char* kFreePort = "29500";
// Reading a local image's ENTRYPOINT from the Docker Engine.
constexpr double kInspectTimeoutS = 30;

[[noreturn]] void refuse(const std::string& what, const std::string& message) {
  throw Error::invalid_argument(what + ": " + message);
}

struct RoleInput {
  std::string name;
  std::string image;
  std::string push_image_tag;  // as written, macros unresolved
  std::string image_uri;       // what the pool runs: image, or the tag it is pushed to
  std::string entrypoint;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  int64_t num_replicas = 1;
  MachineRequest machine;
  // The ENTRYPOINT of a locally built image the role runs as built, read only where a late
  // binding wraps its command.
  std::vector<std::string> image_entrypoint;
  // The app's output directory as its containers see it: base_output_dir/<app id> through Vertex
  // AI's Cloud Storage FUSE mount (/gcs/BUCKET/...); "" without base_output_dir.
  std::string output_dir;
};

bool uses_late_bindings(const Role& role) {
  bool found = false;
  for (const std::string& arg : role.args) found = found || has_late_binding(arg);
  for (const auto& [name, value] : role.env) found = found || has_late_binding(value);
  return found;
}

// Applies role metadata vertex.KEY (or caip.KEY), which overrides the run options.
void apply_metadata(const Role& role, const std::string& what, RoleInput& input) {
  MachineRequest& machine = input.machine;
  for (const auto& [key, json] : role.metadata) {
    for (const char* prefix : kMetadataPrefixes) {
      if (key.rfind(prefix, 0) != 0) continue;
      const std::string option = key.substr(std::string_view(prefix).size());
      bool known = false;
      for (const char* name : kMetadataKeys) known = known || option == name;
      if (!known) {
        refuse(what, "metadata key '" + key +
                         "' is not one the vertex scheduler knows (accelerator, "
                         "accelerator_count, tpu_topology, machine_type, push_image_tag)");
      }
      rapidjson::Document value;
      value.Parse(json.data(), json.size());
      if (option == "accelerator_count") {
        if (!value.IsInt() || value.GetInt() < 1) {
          refuse(what, "metadata '" + key + "' must be a positive integer");
        }
        machine.accelerator_count = value.GetInt();
        continue;
      }
      if (!value.IsString()) refuse(what, "metadata '" + key + "' must be a string");
      const std::string text(value.GetString(), value.GetStringLength());
      if (option == "accelerator") machine.accelerator = text;
      if (option == "tpu_topology") machine.tpu_topology = text;
      if (option == "machine_type") machine.machine_type = text;
      if (option == "push_image_tag") input.push_image_tag = text;
    }
  }
}

// The role as Vertex AI runs it, after refusing what the vertex scheduler cannot honour; the SDK
// reader checked the rest.
RoleInput vertex_role(const Role& role, const VertexOptions& options) {
  RoleInput input;
  input.name = role.name;
  const std::string what = "role '" + input.name + "'";
  input.image = role.image;
  if (input.image.empty()) {
    refuse(what,
           "field 'image' is required: the container image Vertex AI runs, e.g. "
           "us-docker.pkg.dev/my-project/repo/trainer:latest");
  }
  input.entrypoint = role.entrypoint;  // empty: the image's own ENTRYPOINT runs (P-2)
  input.args = role.args;
  input.env = role.env;
  input.num_replicas = role.num_replicas;
  if (role.min_replicas && *role.min_replicas != role.num_replicas) {
    refuse(what, "field 'min_replicas' is not supported: Vertex AI worker pools are not elastic");
  }
  if (role.max_retries != 0) {
    refuse(what,
           "field 'max_retries' is not supported: Vertex AI has no restart budget (it "
           "restarts failed replicas itself; see run option "
           "restart_job_on_worker_restart); set it to 0");
  }
  if (!role.base_image.empty()) {
    refuse(what, "field 'base_image' is not supported; build one image and set 'image'");
  }
  if (!role.mounts.empty()) {
    refuse(what,
           "field 'mounts' is not supported by the vertex scheduler; read data from "
           "gs:// (mounted at /gcs/ in Vertex AI replicas) instead");
  }
  if (!role.port_map.empty()) {
    refuse(what,
           "field 'port_map' is not supported: Vertex AI replicas reach each other "
           "through the addresses in CLUSTER_SPEC");
  }
  input.machine.cpu = role.resource.cpu;
  input.machine.gpu = static_cast<int>(role.resource.gpu);
  input.machine.mem_mb = role.resource.mem_mb;
  if (!role.resource.devices.empty()) {
    refuse(what,
           "resource 'devices' are not supported by the vertex scheduler; ask for "
           "GPUs/TPUs with resource.gpu and the accelerator option");
  }
  if (!role.resource.capabilities.empty()) {
    refuse(what, "resource 'capabilities' (" + role.resource.capabilities.front().first +
                     ", ...) mean nothing to Vertex AI; use a named resource without them, or "
                     "set machine_type");
  }
  // The run options' accelerator is for roles that do not say they need none (resource.gpu 0).
  if (input.machine.gpu != 0) {
    input.machine.accelerator = options.accelerator;
    input.machine.accelerator_count = static_cast<int>(options.accelerator_count);
    input.machine.tpu_topology = options.tpu_topology;
  }
  input.machine.machine_type = options.machine_type;
  input.push_image_tag = options.push_image_tag;
  apply_metadata(role, what, input);
  // The host marks images its packagers built into the local Docker Engine (payloads.md P-1):
  // Vertex AI cannot pull a local tag, so such an image is pushed or the job is refused.
  for (const auto& [key, json] : role.metadata) {
    if (key == "sortie.local_image" && json == "true" && input.push_image_tag.empty()) {
      refuse(what, "image '" + role.image +
                       "' was built on this machine and Vertex AI cannot pull it; give a "
                       "registry to push it to, once: the vertex run option push_image_tag "
                       "(e.g. us-docker.pkg.dev/PROJECT/REPO/${role_name}:${app_id}, in "
                       ".sortieconfig [vertex] or -cfg), or Vertex.Spec(push_image_tag=...)");
    }
    if (key == "sortie.local_image" && json == "true" && role.entrypoint.empty() &&
        uses_late_bindings(role)) {
      input.image_entrypoint =
          image_push::DockerImagePusher(image_push::docker_socket_from_environment(push_origin()),
                                        kInspectTimeoutS, push_origin())
              .entrypoint_of(role.image);
    }
  }
  return input;
}

// Macros as Vertex AI can honour them: one spec serves every replica of a pool, so per-replica
// values exist only for single-replica pools.
MacroValues macros_for(const RoleInput& role, const std::string& display_name) {
  MacroValues values;
  values.set("app_id", display_name);
  values.set("role_name", role.name);
  values.set("num_replicas", std::to_string(role.num_replicas));
  values.set("img_root", "");
  values.set("free_port", kFreePort);
  if (role.num_replicas == 1) values.set("replica_id", "0");
  if (!role.output_dir.empty()) values.set(kOutputDirMacro, role.output_dir);
  return values;
}

void refuse_unresolvable_macros(const RoleInput& role, std::string_view text) {
  const std::string what = "role '" + role.name + "'";
  if (role.num_replicas > 1 && text.find("${replica_id}") != std::string_view::npos) {
    refuse(what, "uses ${replica_id}, but Vertex AI starts all " +
                     std::to_string(role.num_replicas) +
                     " replicas of a pool from one spec; read the replica index from the "
                     "CLUSTER_SPEC environment variable (task.index) instead");
  }
  if (role.output_dir.empty() && text.find("${output_dir}") != std::string_view::npos) {
    refuse(what,
           "uses ${output_dir}, but a Vertex AI job has a place of its own to write only on "
           "Cloud Storage: set run option base_output_dir (gs://BUCKET/PATH) and the app writes "
           "under /gcs/BUCKET/PATH/<app id>");
  }
  for (const char* macro : {"${rank0_host}", "${rank0_env}"}) {
    if (text.find(macro) != std::string_view::npos) {
      refuse(what, std::string("uses ") + macro +
                       ", which Vertex AI does not provide; the chief's address is "
                       "CLUSTER_SPEC's cluster.workerpool0[0]");
    }
  }
}

rapidjson::Value string_array(const std::vector<std::string>& items, Alloc& alloc) {
  rapidjson::Value array(rapidjson::kArrayType);
  for (const std::string& item : items)
    array.PushBack(plugins_common::string_value(item, alloc), alloc);
  return array;
}

rapidjson::Value worker_pool(const RoleInput& role, const VertexOptions& options,
                             const std::string& display_name, Alloc& alloc) {
  const std::string what = "role '" + role.name + "'";
  const MachineSpec spec = select_machine(role.machine, what);
  const MacroValues macros = macros_for(role, display_name);

  rapidjson::Value machine(rapidjson::kObjectType);
  plugins_common::add_string(machine, "machineType", spec.machine_type, alloc);
  if (!spec.accelerator_type.empty()) {
    plugins_common::add_string(machine, "acceleratorType", spec.accelerator_type, alloc);
    plugins_common::add_member(machine, "acceleratorCount",
                               rapidjson::Value(spec.accelerator_count), alloc);
  }
  if (!spec.tpu_topology.empty())
    plugins_common::add_string(machine, "tpuTopology", spec.tpu_topology, alloc);

  rapidjson::Value container(rapidjson::kObjectType);
  plugins_common::add_string(container, "imageUri", role.image_uri, alloc);
  std::vector<std::string> args;
  bool late_bound = false;
  for (const std::string& arg : role.args) {
    refuse_unresolvable_macros(role, arg);
    args.push_back(macros.apply(arg));
    late_bound = late_bound || has_late_binding(arg);
  }
  std::vector<std::string> late_bound_env;
  for (const auto& [name, value] : role.env) {
    if (has_late_binding(value)) late_bound_env.push_back(name);
  }
  if (!role.entrypoint.empty()) refuse_unresolvable_macros(role, role.entrypoint);
  if (late_bound || !late_bound_env.empty()) {
    const std::vector<std::string> entrypoint = role.entrypoint.empty()
                                                    ? role.image_entrypoint
                                                    : std::vector{macros.apply(role.entrypoint)};
    if (entrypoint.empty()) {
      refuse(what,
             "uses a late binding (%objectname(...)%, xmanager.cloud.utils."
             "get_workerpool_address), which a wrapper resolves from CLUSTER_SPEC before it runs "
             "the role's entrypoint, but the image '" +
                 role.image +
                 "' is not built here, so its ENTRYPOINT is unknown; give the role an "
                 "entrypoint, or package the image with sortie (xm.python_container, "
                 "xm.dockerfile_container)");
    }
    plugins_common::add_member(
        container, "command", string_array(late_binding_command(entrypoint, late_bound_env), alloc),
        alloc);
  } else if (!role.entrypoint.empty()) {
    plugins_common::add_member(container, "command",
                               string_array({macros.apply(role.entrypoint)}, alloc), alloc);
  }
  if (!args.empty())
    plugins_common::add_member(container, "args", string_array(args, alloc), alloc);
  rapidjson::Value env(rapidjson::kArrayType);
  auto push_env = [&](const std::string& name, const std::string& value) {
    rapidjson::Value entry(rapidjson::kObjectType);
    plugins_common::add_string(entry, "name", name, alloc);
    plugins_common::add_string(entry, "value", value, alloc);
    env.PushBack(entry, alloc);
  };
  for (const auto& [name, value] : role.env) {
    if (name == kRoleNameEnv || name == "SORTIE_APP_ID") continue;
    refuse_unresolvable_macros(role, value);
    push_env(name, macros.apply(value));
  }
  push_env("SORTIE_APP_ID", display_name);
  push_env(kRoleNameEnv, role.name);
  if (!role.output_dir.empty()) push_env(kOutputDirEnv, role.output_dir);
  plugins_common::add_member(container, "env", std::move(env), alloc);

  rapidjson::Value pool(rapidjson::kObjectType);
  plugins_common::add_member(pool, "machineSpec", std::move(machine), alloc);
  plugins_common::add_string(pool, "replicaCount", std::to_string(role.num_replicas), alloc);
  plugins_common::add_member(pool, "containerSpec", std::move(container), alloc);
  if (!options.boot_disk_type.empty() || options.boot_disk_size_gb > 0) {
    rapidjson::Value disk(rapidjson::kObjectType);
    if (!options.boot_disk_type.empty()) {
      plugins_common::add_string(disk, "bootDiskType", options.boot_disk_type, alloc);
    }
    if (options.boot_disk_size_gb > 0) {
      plugins_common::add_member(disk, "bootDiskSizeGb",
                                 rapidjson::Value(static_cast<int>(options.boot_disk_size_gb)),
                                 alloc);
    }
    plugins_common::add_member(pool, "diskSpec", std::move(disk), alloc);
  }
  return pool;
}

rapidjson::Value job_spec(const std::vector<RoleInput>& roles, const VertexOptions& options,
                          const std::string& display_name, Alloc& alloc) {
  rapidjson::Value pools(rapidjson::kArrayType);
  for (const RoleInput& role : roles) {
    pools.PushBack(worker_pool(role, options, display_name, alloc), alloc);
  }
  rapidjson::Value spec(rapidjson::kObjectType);
  plugins_common::add_member(spec, "workerPoolSpecs", std::move(pools), alloc);
  if (!options.service_account.empty()) {
    plugins_common::add_string(spec, "serviceAccount", options.service_account, alloc);
  }
  if (!options.network.empty()) plugins_common::add_string(spec, "network", options.network, alloc);
  if (!options.base_output_dir.empty()) {
    rapidjson::Value destination(rapidjson::kObjectType);
    plugins_common::add_string(destination, "outputUriPrefix", options.base_output_dir, alloc);
    plugins_common::add_member(spec, "baseOutputDirectory", std::move(destination), alloc);
  }
  if (!options.tensorboard.empty())
    plugins_common::add_string(spec, "tensorboard", options.tensorboard, alloc);
  if (options.timeout_seconds > 0 || options.restart_job_on_worker_restart) {
    rapidjson::Value scheduling(rapidjson::kObjectType);
    if (options.timeout_seconds > 0) {
      plugins_common::add_string(scheduling, "timeout",
                                 std::to_string(options.timeout_seconds) + "s", alloc);
    }
    if (options.restart_job_on_worker_restart) {
      plugins_common::add_member(scheduling, "restartJobOnWorkerRestart", rapidjson::Value(true),
                                 alloc);
    }
    plugins_common::add_member(spec, "scheduling", std::move(scheduling), alloc);
  }
  if (options.enable_web_access) {
    plugins_common::add_member(spec, "enableWebAccess", rapidjson::Value(true), alloc);
  }
  return spec;
}

// Resolves each role's push_image_tag (macros ${app_id} and ${role_name}) and points its pool at
// the pushed tag. One push per distinct (image, tag); two images pushed to one tag are refused,
// since the second push would replace the first.
std::vector<ImagePush> plan_image_pushes(std::vector<RoleInput>& roles,
                                         const std::string& display_name) {
  std::vector<ImagePush> pushes;
  for (RoleInput& role : roles) {
    role.image_uri = role.image;
    if (role.push_image_tag.empty()) continue;
    const std::string what = "role '" + role.name + "'";
    check_local_image_name(role.image, what + " image");
    MacroValues macros;
    macros.set("app_id", display_name);
    macros.set("role_name", role.name);
    const std::string tag_text = macros.apply(role.push_image_tag);
    if (tag_text.find("${") != std::string::npos) {
      refuse(what, "push_image_tag '" + role.push_image_tag +
                       "' may use the macros ${app_id} and ${role_name} only");
    }
    const ImageReference target = parse_push_target(tag_text, what + " push_image_tag");
    role.image_uri = target.str();
    auto same_tag = std::find_if(pushes.begin(), pushes.end(), [&](const ImagePush& push) {
      return push.target.str() == role.image_uri;
    });
    if (same_tag == pushes.end()) {
      pushes.push_back({role.image, target, {role.name}});
    } else if (same_tag->source == role.image) {
      same_tag->roles.push_back(role.name);
    } else {
      refuse(what, "push_image_tag '" + role.image_uri + "' is also where role '" +
                       same_tag->roles.front() + "' pushes image '" + same_tag->source +
                       "'; one tag holds one image: give each role its own tag (role metadata "
                       "vertex.push_image_tag, or ${role_name} in the tag)");
    }
  }
  return pushes;
}

}  // namespace

std::string label_value(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const char l = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    const bool ok = (l >= 'a' && l <= 'z') || (l >= '0' && l <= '9') || l == '_' || l == '-';
    out += ok ? l : '-';
    if (out.size() == 63) break;
  }
  return out;
}

std::string build_dryrun(std::string_view input_text, const std::string& default_session) {
  const std::string what = "sortie.dryrun_input/1";
  const DryrunInput input = read_dryrun_input(input_text);
  const VertexOptions options = parse_run_options(input.cfg_json);
  const std::string& app_id = input.app_id;
  if (app_id.empty()) throw Error::invalid_argument(what + ": member 'app_id' is required");
  const std::string session = input.session.empty() ? default_session : input.session;
  const std::string display_name = options.display_name.empty() ? app_id : options.display_name;

  std::vector<RoleInput> roles;
  for (const Role& role : input.app.roles) {
    roles.push_back(vertex_role(role, options));
    if (!input.app.output_dir.empty() && !options.base_output_dir.empty()) {
      roles.back().output_dir = "/gcs/" + options.base_output_dir.substr(5) + "/" + app_id;
    }
  }
  if (roles.size() > kMaxWorkerPools) {
    throw Error::invalid_argument(
        "app has " + std::to_string(roles.size()) +
        " roles but a Vertex AI CustomJob has at most 4 worker pools (chief, workers, "
        "parameter servers, evaluator); merge roles or submit several apps");
  }
  if (roles.front().num_replicas != 1) {
    throw Error::invalid_argument(
        "role '" + roles.front().name + "' asks for " + std::to_string(roles.front().num_replicas) +
        " replicas, but Vertex AI's first worker pool (the chief) has exactly 1; add "
        "a first role with one replica (the chief) and keep the workers in a second "
        "role");
  }

  const std::vector<ImagePush> pushes = plan_image_pushes(roles, display_name);

  rapidjson::Document payload(rapidjson::kObjectType);
  Alloc& alloc = payload.GetAllocator();
  rapidjson::Value job(rapidjson::kObjectType);
  plugins_common::add_string(job, "displayName", display_name, alloc);
  plugins_common::add_member(job, "jobSpec", job_spec(roles, options, display_name, alloc), alloc);
  std::map<std::string, std::string> labels = options.labels;
  labels[kSessionLabel] = label_value(session);
  labels[kAppLabel] = label_value(app_id);
  rapidjson::Value label_object(rapidjson::kObjectType);
  for (const auto& [key, value] : labels)
    plugins_common::add_string(label_object, key, value, alloc);
  plugins_common::add_member(job, "labels", std::move(label_object), alloc);

  const std::string parent = "projects/" + options.project + "/locations/" + options.location;
  const Connection connection = connection_from(options);
  const std::string push_text =
      pushes.empty()
          ? ""
          : image_push::image_pushes_text(
                pushes, image_push::docker_socket_from_environment(push_origin()), push_origin());
  const std::string text = push_text + "POST " + connection.endpoint + "/v1/" + parent +
                           "/customJobs\nAuthorization: Bearer <access token>\n"
                           "Content-Type: application/json\n\n" +
                           plugins_common::to_pretty_json_text(job);

  plugins_common::add_string(payload, "schema", "sortie.dryrun/1", alloc);
  plugins_common::add_string(payload, "app_id", app_id, alloc);
  plugins_common::add_member(payload, "request", std::move(job), alloc);
  plugins_common::add_string(payload, "text", text, alloc);
  rapidjson::Value vertex(rapidjson::kObjectType);
  plugins_common::add_string(vertex, "parent", parent, alloc);
  plugins_common::add_member(vertex, "connection", connection_to_json(connection, alloc), alloc);
  if (!pushes.empty()) {
    plugins_common::add_member(vertex, "image_pushes",
                               image_push::image_pushes_to_json(pushes, alloc), alloc);
    plugins_common::add_member(vertex, "push_timeout", rapidjson::Value(options.push_timeout_s),
                               alloc);
  }
  plugins_common::add_member(payload, "vertex", std::move(vertex), alloc);
  return plugins_common::to_json_text(payload);
}

}  // namespace sortie::vertex
