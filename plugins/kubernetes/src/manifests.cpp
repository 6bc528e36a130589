#include "manifests.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sortie/macros.hpp>
#include <sortie/plugin.hpp>
#include <utility>
#include <vector>

#include "dns_names.hpp"

namespace sortie::kubernetes {
namespace {

// Gang-scheduled objects keep their own name short: pod names add role, index and replica.
constexpr size_t kMaxGangNameLength = 40;
constexpr const char* kCompletionIndexField =
    "metadata.annotations['batch.kubernetes.io/job-completion-index']";
constexpr const char* kKueueQueueLabel = "kueue.x-k8s.io/queue-name";
// ${free_port} (payloads.md P-12.1): every pod has its own network namespace, so a fixed port
// never collides with another app's.
constexpr const char* kFreePort = "29500";
// Where a pod sees its app's output directory, and the volume that holds it.
constexpr const char* kPodOutputDir = "/sortie/output";
constexpr const char* kOutputVolume = "sortie-output";

[[noreturn]] void refuse(const std::string& what, const std::string& message) {
  throw Error::invalid_argument(what + ": " + message);
}

size_t digits(int64_t value) { return std::to_string(value).size(); }

// Kubernetes expands $(VAR) in command, args and env values; a literal "$(" must be written "$$(".
std::string escape_var_refs(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '(') out += '$';
    out += text[i];
  }
  return out;
}

std::string quantity_cpu(double cpu) {
  const auto millis = static_cast<int64_t>(std::llround(cpu * 1000));
  return millis % 1000 == 0 ? std::to_string(millis / 1000) : std::to_string(millis) + "m";
}

// Builds the objects of one app; one instance per build_manifests call.
class ManifestBuilder {
 public:
  ManifestBuilder(const ManifestInput& input, Allocator& allocator)
      : input_(input), options_(input.options), a_(allocator) {}

  // The app's output directory is the pod's own emptyDir at kPodOutputDir: scratch that lives as
  // long as the pod (docs/kubernetes-scheduler.md), as a cluster gives no host path to share.
  bool has_output_dir() const { return !input_.app.output_dir.empty(); }

  AppRef build(Json& objects) {
    switch (options_.gang) {
      case Gang::kNone:
        return build_jobs(objects);
      case Gang::kVolcano:
        return build_volcano(objects);
      case Gang::kJobSet:
        return build_jobset(objects);
    }
    return {};
  }

 private:
  std::string role_what(const Role& role) const { return "role '" + role.name + "'"; }

  Json string_map(const std::vector<std::pair<std::string, std::string>>& entries) {
    Json map(rapidjson::kObjectType);
    for (const auto& [key, value] : entries) set_string(map, key, value, a_);
    return map;
  }

  // Labels of the app's top-level objects (what list selects on).
  std::vector<std::pair<std::string, std::string>> app_labels(const std::string& name) const {
    std::vector<std::pair<std::string, std::string>> labels = {
        {kManagedByLabel, kManagedByValue},
        {"app.kubernetes.io/name", label_value(input_.app.name)},
        {"app.kubernetes.io/instance", name},
        {kAppLabel, name},
        {kSessionLabel, label_value(input_.session)}};
    return labels;
  }

  std::vector<std::pair<std::string, std::string>> app_annotations() const {
    return {{kAppNameAnnotation, input_.app.name}, {kSessionAnnotation, input_.session}};
  }

  Json metadata(const std::string& name, std::vector<std::pair<std::string, std::string>> labels,
                const std::vector<std::pair<std::string, std::string>>& annotations) {
    Json meta(rapidjson::kObjectType);
    set_string(meta, "name", name, a_);
    set_string(meta, "namespace", input_.namespace_name, a_);
    set_member(meta, "labels", string_map(labels), a_);
    set_member(meta, "annotations", string_map(annotations), a_);
    return meta;
  }

  void add_object(Json& objects, std::string_view api, std::string_view plural, Json manifest,
                  bool owned_by_first) {
    Json object(rapidjson::kObjectType);
    set_string(object, "collection", collection_path(api, input_.namespace_name, plural), a_);
    set_member(object, "owned_by_first", Json(owned_by_first), a_);
    set_member(object, "manifest", std::move(manifest), a_);
    objects.PushBack(object, a_);
  }

  Json head(const char* api_version, const char* kind, Json meta) {
    Json object(rapidjson::kObjectType);
    set_string(object, "apiVersion", api_version, a_);
    set_string(object, "kind", kind, a_);
    set_member(object, "metadata", std::move(meta), a_);
    return object;
  }

  // Each role's name and the DNS name of its replica 0, in the app's role order.
  using RoleHosts = std::vector<std::pair<std::string, std::string>>;

  // What differs between the replicas of a role and how the pod learns it.
  struct ReplicaIdentity {
    const Role* role = nullptr;
    const RoleHosts* hosts = nullptr;  // the first is the rank-0 host
    int64_t replica_id = -1;           // -1: from the Job's completion index, per pod
  };

  Json env_var(std::string_view name, std::string_view value) {
    Json var(rapidjson::kObjectType);
    set_string(var, "name", name, a_);
    set_string(var, "value", value, a_);
    return var;
  }

  Json container(const ReplicaIdentity& id, const std::string& app_id, bool* privileged) {
    const Role& role = *id.role;
    const std::string replica_text =
        id.replica_id < 0 ? "$(SORTIE_REPLICA_ID)" : std::to_string(id.replica_id);
    MacroValues macros;
    macros.set("app_id", app_id)
        .set("replica_id", replica_text)
        .set("num_replicas", std::to_string(role.num_replicas))
        .set("role_name", role.name)
        .set("img_root", "")
        .set("rank0_env", kRank0Env)
        .set("rank0_host", id.hosts->front().second)
        .set("free_port", kFreePort);
    if (has_output_dir()) macros.set(kOutputDirMacro, kPodOutputDir);
    // ${role_host:ROLE}: another role's replica 0, for programs that list every peer (TF_CONFIG).
    for (const auto& [name, host] : *id.hosts) macros.set("role_host:" + name, host);
    const auto expand = [&](std::string_view text) { return macros.apply(escape_var_refs(text)); };

    Json c(rapidjson::kObjectType);
    set_string(c, "name", dns_label(role.name), a_);
    set_string(c, "image", role.image, a_);
    // No entrypoint (a packaged image's own, P-13): the image's ENTRYPOINT runs, with the args
    // as its command, as Kubernetes does for a container without `command`.
    if (!role.entrypoint.empty()) {
      Json command(rapidjson::kArrayType);
      push_string(command, escape_var_refs(role.entrypoint), a_);
      set_member(c, "command", std::move(command), a_);
    }
    if (!role.args.empty()) {
      Json args(rapidjson::kArrayType);
      for (const std::string& arg : role.args) push_string(args, expand(arg), a_);
      set_member(c, "args", std::move(args), a_);
    }

    // The SORTIE_* variables come first so that user values can refer to them as $(NAME).
    std::vector<std::pair<std::string, Json>> env;
    if (id.replica_id < 0) {
      Json var(rapidjson::kObjectType);
      set_string(var, "name", "SORTIE_REPLICA_ID", a_);
      Json field(rapidjson::kObjectType);
      set_string(field, "fieldPath", kCompletionIndexField, a_);
      Json from(rapidjson::kObjectType);
      set_member(from, "fieldRef", std::move(field), a_);
      set_member(var, "valueFrom", std::move(from), a_);
      env.emplace_back("SORTIE_REPLICA_ID", std::move(var));
    } else {
      env.emplace_back("SORTIE_REPLICA_ID", env_var("SORTIE_REPLICA_ID", replica_text));
    }
    const std::pair<const char*, std::string> fixed[] = {
        {"SORTIE_APP_ID", app_id},
        {"SORTIE_ROLE_NAME", role.name},
        {"SORTIE_NUM_REPLICAS", std::to_string(role.num_replicas)},
        {kRank0Env, id.hosts->front().second},
        {"PYTHONUNBUFFERED", "1"}};
    for (const auto& [name, value] : fixed) env.emplace_back(name, env_var(name, value));
    if (has_output_dir()) env.emplace_back(kOutputDirEnv, env_var(kOutputDirEnv, kPodOutputDir));
    for (const auto& [name, value] : role.env) {
      Json var = env_var(name, expand(value));
      const auto same = std::find_if(env.begin(), env.end(),
                                     [&](const auto& entry) { return entry.first == name; });
      if (same != env.end()) {
        same->second = std::move(var);
      } else {
        env.emplace_back(name, std::move(var));
      }
    }
    Json env_list(rapidjson::kArrayType);
    for (auto& entry : env) env_list.PushBack(entry.second, a_);
    set_member(c, "env", std::move(env_list), a_);

    if (!role.port_map.empty()) {
      Json ports(rapidjson::kArrayType);
      for (const auto& [name, number] : role.port_map) {
        Json port(rapidjson::kObjectType);
        set_string(port, "name", name, a_);
        set_member(port, "containerPort", Json(static_cast<int>(number)), a_);
        ports.PushBack(port, a_);
      }
      set_member(c, "ports", std::move(ports), a_);
    }

    std::vector<std::pair<std::string, std::string>> quantities;
    if (role.resource.cpu > 0) quantities.emplace_back("cpu", quantity_cpu(role.resource.cpu));
    if (role.resource.mem_mb > 0)
      quantities.emplace_back("memory", std::to_string(role.resource.mem_mb) + "Mi");
    if (role.resource.gpu > 0)
      quantities.emplace_back("nvidia.com/gpu", std::to_string(role.resource.gpu));
    for (const auto& [name, count] : role.resource.devices) {
      if (count > 0) quantities.emplace_back(name, std::to_string(count));
    }
    if (!quantities.empty()) {
      // Requests equal limits: the pod gets the Guaranteed QoS class the app asked for.
      Json resources(rapidjson::kObjectType);
      set_member(resources, "requests", string_map(quantities), a_);
      set_member(resources, "limits", string_map(quantities), a_);
      set_member(c, "resources", std::move(resources), a_);
    }

    Json mounts(rapidjson::kArrayType);
    Json shm(rapidjson::kObjectType);
    set_string(shm, "name", "dshm", a_);
    set_string(shm, "mountPath", "/dev/shm", a_);
    mounts.PushBack(shm, a_);
    if (has_output_dir()) {
      Json output(rapidjson::kObjectType);
      set_string(output, "name", kOutputVolume, a_);
      set_string(output, "mountPath", kPodOutputDir, a_);
      mounts.PushBack(output, a_);
    }
    for (size_t i = 0; i < role.mounts.size(); ++i) {
      Json mount(rapidjson::kObjectType);
      set_string(mount, "name", "mount-" + std::to_string(i), a_);
      set_string(mount, "mountPath", role.mounts[i].dst, a_);
      if (role.mounts[i].read_only) set_member(mount, "readOnly", Json(true), a_);
      mounts.PushBack(mount, a_);
      *privileged = *privileged || role.mounts[i].type == MountType::kDevice;
    }
    set_member(c, "volumeMounts", std::move(mounts), a_);
    if (*privileged) {
      // Device nodes from the host are only usable by a privileged container (as in TorchX).
      Json security(rapidjson::kObjectType);
      set_member(security, "privileged", Json(true), a_);
      set_member(c, "securityContext", std::move(security), a_);
    }
    return c;
  }

  Json volume(const Mount& mount, size_t index, const std::string& what) {
    Json v(rapidjson::kObjectType);
    set_string(v, "name", "mount-" + std::to_string(index), a_);
    Json source(rapidjson::kObjectType);
    if (mount.type != MountType::kVolume) {
      set_string(source, "path", mount.src, a_);
      set_member(v, "hostPath", std::move(source), a_);
      return v;
    }
    // volume src: "configmap:NAME", "secret:NAME", "pvc:NAME" or a bare claim name.
    std::string kind = "pvc";
    std::string name = mount.src;
    if (const size_t colon = mount.src.find(':'); colon != std::string::npos) {
      kind = mount.src.substr(0, colon);
      name = mount.src.substr(colon + 1);
    }
    if (!is_dns1123_subdomain(name)) {
      refuse(what, "volume mount src '" + mount.src +
                       "' does not name a Kubernetes object (lower-case a-z, 0-9, '-', '.')");
    }
    if (kind == "pvc") {
      set_string(source, "claimName", name, a_);
      if (mount.read_only) set_member(source, "readOnly", Json(true), a_);
      set_member(v, "persistentVolumeClaim", std::move(source), a_);
    } else if (kind == "configmap") {
      set_string(source, "name", name, a_);
      set_member(v, "configMap", std::move(source), a_);
    } else if (kind == "secret") {
      set_string(source, "secretName", name, a_);
      set_member(v, "secret", std::move(source), a_);
    } else {
      refuse(what, "volume mount src '" + mount.src +
                       "': expected a PersistentVolumeClaim name, pvc:NAME, configmap:NAME or "
                       "secret:NAME");
    }
    return v;
  }

  // A pod template for one role (or one replica, when id.replica_id >= 0).
  Json pod_template(const ReplicaIdentity& id, const std::string& app_id,
                    const std::string& object_name, const std::string& subdomain) {
    const Role& role = *id.role;
    const std::string what = role_what(role);
    std::vector<std::pair<std::string, std::string>> labels = app_labels(object_name);
    labels.emplace_back(kRoleLabel, label_value(role.name));
    if (id.replica_id >= 0) labels.emplace_back(kReplicaLabel, std::to_string(id.replica_id));
    std::vector<std::pair<std::string, std::string>> annotations = app_annotations();
    annotations.emplace_back(kRoleNameAnnotation, role.name);

    Json meta(rapidjson::kObjectType);
    set_member(meta, "labels", string_map(labels), a_);
    set_member(meta, "annotations", string_map(annotations), a_);

    Json spec(rapidjson::kObjectType);
    set_string(spec, "restartPolicy", "Never", a_);
    if (!subdomain.empty()) set_string(spec, "subdomain", subdomain, a_);
    if (!options_.service_account.empty()) {
      set_string(spec, "serviceAccountName", options_.service_account, a_);
    }
    if (!options_.priority_class.empty()) {
      set_string(spec, "priorityClassName", options_.priority_class, a_);
    }
    if (!options_.image_pull_secrets.empty()) {
      Json secrets(rapidjson::kArrayType);
      for (const std::string& name : options_.image_pull_secrets) {
        Json secret(rapidjson::kObjectType);
        set_string(secret, "name", name, a_);
        secrets.PushBack(secret, a_);
      }
      set_member(spec, "imagePullSecrets", std::move(secrets), a_);
    }
    if (!role.resource.capabilities.empty()) {
      set_member(spec, "nodeSelector", string_map(role.resource.capabilities), a_);
    }
    bool privileged = false;
    Json containers(rapidjson::kArrayType);
    containers.PushBack(container(id, app_id, &privileged), a_);
    set_member(spec, "containers", std::move(containers), a_);

    Json volumes(rapidjson::kArrayType);
    Json shm(rapidjson::kObjectType);
    set_string(shm, "name", "dshm", a_);
    Json empty_dir(rapidjson::kObjectType);
    set_string(empty_dir, "medium", "Memory", a_);
    set_member(shm, "emptyDir", std::move(empty_dir), a_);
    volumes.PushBack(shm, a_);
    if (has_output_dir()) {
      Json output(rapidjson::kObjectType);
      set_string(output, "name", kOutputVolume, a_);
      set_member(output, "emptyDir", Json(rapidjson::kObjectType), a_);
      volumes.PushBack(output, a_);
    }
    for (size_t i = 0; i < role.mounts.size(); ++i) {
      volumes.PushBack(volume(role.mounts[i], i, what), a_);
    }
    set_member(spec, "volumes", std::move(volumes), a_);

    Json template_spec(rapidjson::kObjectType);
    set_member(template_spec, "metadata", std::move(meta), a_);
    set_member(template_spec, "spec", std::move(spec), a_);
    return template_spec;
  }

  // A batch/v1 JobSpec running every replica of a role as one index of an Indexed Job.
  Json indexed_job_spec(const ReplicaIdentity& id, const std::string& app_id,
                        const std::string& object_name, const std::string& subdomain,
                        bool app_restarts_elsewhere) {
    const Role& role = *id.role;
    Json spec(rapidjson::kObjectType);
    set_string(spec, "completionMode", "Indexed", a_);
    set_member(spec, "completions", Json(static_cast<int>(role.num_replicas)), a_);
    set_member(spec, "parallelism", Json(static_cast<int>(role.num_replicas)), a_);
    if (role.max_retries > 0 && role.retry_policy == RetryPolicy::kReplica) {
      // Each index (replica) is retried on its own, up to max_retries times.
      set_member(spec, "backoffLimitPerIndex", Json(static_cast<int>(role.max_retries)), a_);
    } else if (role.max_retries > 0 && !app_restarts_elsewhere) {
      set_member(spec, "backoffLimit", Json(static_cast<int>(role.max_retries)), a_);
    } else {
      set_member(spec, "backoffLimit", Json(0), a_);
    }
    set_member(spec, "template", pod_template(id, app_id, object_name, subdomain), a_);
    return spec;
  }

  void check_retries_for_separate_jobs(const Role& role) const {
    if (role.max_retries == 0 || role.retry_policy == RetryPolicy::kReplica) return;
    // With one replica in a one-role app, restarting the app, the role or the replica is the same.
    if (input_.app.roles.size() == 1 && role.num_replicas == 1) return;
    refuse(role_what(role),
           "retry_policy " + std::string(retry_policy_name(role.retry_policy)) +
               " with max_retries " + std::to_string(role.max_retries) +
               " restarts more than the failed replica, which separate Jobs cannot do; use "
               "retry_policy REPLICA, or run option gang_scheduler=jobset (restarts the whole "
               "app) or volcano");
  }

  void check_not_elastic(const Role& role, const char* mode) const {
    if (role.min_replicas && *role.min_replicas != role.num_replicas) {
      refuse(role_what(role),
             "field 'min_replicas' (elastic roles) needs "
             "gang_scheduler=volcano; " +
                 std::string(mode) + " starts all num_replicas");
    }
  }

  void check_distinct(std::set<std::string>& seen, const std::string& name,
                      const Role& role) const {
    if (!seen.insert(name).second) {
      refuse(role_what(role), "its Kubernetes name '" + name +
                                  "' is the same as another role's; rename one of the roles");
    }
  }

  AppRef build_jobs(Json& objects) {
    AppRef ref{Gang::kNone, input_.namespace_name, dns_label(input_.proposed_name)};
    const std::string app_id = ref.id();
    const std::string service = dns1035_label(ref.name);
    std::vector<std::string> job_names;
    std::set<std::string> seen;
    for (const Role& role : input_.app.roles) {
      check_not_elastic(role, "a Job per role");
      check_retries_for_separate_jobs(role);
      // Pod hostnames are JOB-INDEX and must stay a DNS label.
      job_names.push_back(dns_label(ref.name + "-" + role.name,
                                    kMaxLabelLength - 1 - digits(role.num_replicas - 1)));
      check_distinct(seen, job_names.back(), role);
    }
    RoleHosts hosts;
    for (size_t i = 0; i < input_.app.roles.size(); ++i) {
      hosts.emplace_back(input_.app.roles[i].name, job_names[i] + "-0." + service);
    }
    for (size_t i = 0; i < input_.app.roles.size(); ++i) {
      const Role& role = input_.app.roles[i];
      auto labels = app_labels(ref.name);
      labels.emplace_back(kRoleLabel, label_value(role.name));
      if (!options_.queue.empty()) labels.emplace_back(kKueueQueueLabel, options_.queue);
      auto annotations = app_annotations();
      annotations.emplace_back(kRoleNameAnnotation, role.name);
      Json job = head("batch/v1", "Job", metadata(job_names[i], labels, annotations));
      ReplicaIdentity id{&role, &hosts, -1};
      set_member(job, "spec", indexed_job_spec(id, app_id, ref.name, service, false), a_);
      add_object(objects, kBatchApi, "jobs", std::move(job), false);
    }

    Json svc = head("v1", "Service", metadata(service, app_labels(ref.name), app_annotations()));
    Json spec(rapidjson::kObjectType);
    set_string(spec, "clusterIP", "None", a_);
    Json selector(rapidjson::kObjectType);
    set_string(selector, kAppLabel, ref.name, a_);
    set_member(spec, "selector", std::move(selector), a_);
    // Replicas must find each other before they are ready (rendezvous happens at start-up).
    set_member(spec, "publishNotReadyAddresses", Json(true), a_);
    set_member(svc, "spec", std::move(spec), a_);
    add_object(objects, kCoreApi, "services", std::move(svc), true);
    return ref;
  }

  AppRef build_volcano(Json& objects) {
    AppRef ref{Gang::kVolcano, input_.namespace_name,
               dns_label(input_.proposed_name, kMaxGangNameLength)};
    const std::string app_id = ref.id();
    int64_t min_available = 0;
    int64_t job_max_retry = -1;
    struct Task {
      const Role* role;
      int64_t replica;
      std::string name;
    };
    std::vector<Task> tasks;
    std::set<std::string> seen;
    for (const Role& role : input_.app.roles) {
      if (role.max_retries > 0 && role.retry_policy == RetryPolicy::kRole) {
        refuse(role_what(role),
               "retry_policy ROLE is not supported with gang_scheduler=volcano; "
               "use APPLICATION (RestartJob) or REPLICA (RestartTask)");
      }
      min_available += role.min_replicas.value_or(role.num_replicas);
      job_max_retry =
          job_max_retry < 0 ? role.max_retries : std::min(job_max_retry, role.max_retries);
      for (int64_t r = 0; r < role.num_replicas; ++r) {
        // Volcano names pods JOB-TASK-0 and uses that as the hostname: keep it a DNS label.
        const std::string task =
            dns_label(role.name + "-" + std::to_string(r), kMaxLabelLength - ref.name.size() - 3);
        check_distinct(seen, task, role);
        tasks.push_back({&role, r, task});
      }
    }
    RoleHosts hosts;
    for (const Task& task : tasks) {
      if (task.replica == 0) {
        hosts.emplace_back(task.role->name, ref.name + "-" + task.name + "-0." + ref.name);
      }
    }

    auto labels = app_labels(ref.name);
    Json job =
        head("batch.volcano.sh/v1alpha1", "Job", metadata(ref.name, labels, app_annotations()));
    Json spec(rapidjson::kObjectType);
    set_string(spec, "schedulerName", "volcano", a_);
    set_string(spec, "queue", options_.queue.empty() ? "default" : options_.queue, a_);
    set_member(spec, "minAvailable", Json(static_cast<int>(min_available)), a_);
    set_member(spec, "maxRetry", Json(static_cast<int>(job_max_retry)), a_);
    if (!options_.priority_class.empty()) {
      set_string(spec, "priorityClassName", options_.priority_class, a_);
    }
    Json plugins(rapidjson::kObjectType);
    Json svc(rapidjson::kArrayType);
    push_string(svc, "--publish-not-ready-addresses", a_);
    set_member(plugins, "svc", std::move(svc), a_);
    set_member(plugins, "env", Json(rapidjson::kArrayType), a_);
    set_member(spec, "plugins", std::move(plugins), a_);
    Json task_list(rapidjson::kArrayType);
    for (const Task& task : tasks) {
      Json t(rapidjson::kObjectType);
      set_string(t, "name", task.name, a_);
      set_member(t, "replicas", Json(1), a_);
      const Role& role = *task.role;
      if (role.max_retries > 0) {
        set_member(t, "maxRetry", Json(static_cast<int>(role.max_retries)), a_);
        Json policies(rapidjson::kArrayType);
        const bool whole_app = role.retry_policy == RetryPolicy::kApplication;
        for (const char* event : whole_app ? std::vector<const char*>{"PodEvicted", "PodFailed"}
                                           : std::vector<const char*>{"PodFailed"}) {
          Json policy(rapidjson::kObjectType);
          set_string(policy, "event", event, a_);
          set_string(policy, "action", whole_app ? "RestartJob" : "RestartTask", a_);
          policies.PushBack(policy, a_);
        }
        set_member(t, "policies", std::move(policies), a_);
      }
      ReplicaIdentity id{&role, &hosts, task.replica};
      set_member(t, "template", pod_template(id, app_id, ref.name, ""), a_);
      task_list.PushBack(t, a_);
    }
    set_member(spec, "tasks", std::move(task_list), a_);
    set_member(job, "spec", std::move(spec), a_);
    add_object(objects, kVolcanoApi, "jobs", std::move(job), false);
    return ref;
  }

  AppRef build_jobset(Json& objects) {
    AppRef ref{Gang::kJobSet, input_.namespace_name,
               dns_label(input_.proposed_name, kMaxGangNameLength)};
    const std::string app_id = ref.id();
    std::vector<std::string> names;
    std::set<std::string> seen;
    int64_t max_restarts = -1;
    for (const Role& role : input_.app.roles) {
      check_not_elastic(role, "a JobSet");
      if (role.max_retries > 0 && role.retry_policy == RetryPolicy::kRole) {
        refuse(role_what(role),
               "retry_policy ROLE is not supported with gang_scheduler=jobset; "
               "use APPLICATION (restarts the JobSet) or REPLICA");
      }
      if (role.retry_policy == RetryPolicy::kApplication) {
        max_restarts =
            max_restarts < 0 ? role.max_retries : std::min(max_restarts, role.max_retries);
      }
      // Pod hostnames are JOBSET-RJOB-0-INDEX and must stay a DNS label.
      names.push_back(dns_label(
          role.name, kMaxLabelLength - ref.name.size() - 4 - digits(role.num_replicas - 1)));
      check_distinct(seen, names.back(), role);
    }
    RoleHosts hosts;
    for (size_t i = 0; i < input_.app.roles.size(); ++i) {
      hosts.emplace_back(input_.app.roles[i].name, ref.name + "-" + names[i] + "-0-0." + ref.name);
    }

    auto labels = app_labels(ref.name);
    if (!options_.queue.empty()) labels.emplace_back(kKueueQueueLabel, options_.queue);
    Json jobset =
        head("jobset.x-k8s.io/v1alpha2", "JobSet", metadata(ref.name, labels, app_annotations()));
    Json spec(rapidjson::kObjectType);
    Json network(rapidjson::kObjectType);
    set_member(network, "enableDNSHostnames", Json(true), a_);
    set_member(network, "publishNotReadyAddresses", Json(true), a_);
    set_member(spec, "network", std::move(network), a_);
    if (max_restarts > 0) {
      Json failure(rapidjson::kObjectType);
      set_member(failure, "maxRestarts", Json(static_cast<int>(max_restarts)), a_);
      set_member(spec, "failurePolicy", std::move(failure), a_);
    }
    Json replicated(rapidjson::kArrayType);
    for (size_t i = 0; i < input_.app.roles.size(); ++i) {
      const Role& role = input_.app.roles[i];
      Json rjob(rapidjson::kObjectType);
      set_string(rjob, "name", names[i], a_);
      set_member(rjob, "replicas", Json(1), a_);
      Json job_template(rapidjson::kObjectType);
      Json job_meta(rapidjson::kObjectType);
      set_member(job_meta, "labels",
                 string_map({{kAppLabel, ref.name}, {kRoleLabel, label_value(role.name)}}), a_);
      set_member(job_template, "metadata", std::move(job_meta), a_);
      ReplicaIdentity id{&role, &hosts, -1};
      set_member(job_template, "spec", indexed_job_spec(id, app_id, ref.name, "", true), a_);
      set_member(rjob, "template", std::move(job_template), a_);
      replicated.PushBack(rjob, a_);
    }
    set_member(spec, "replicatedJobs", std::move(replicated), a_);
    set_member(jobset, "spec", std::move(spec), a_);
    add_object(objects, kJobSetApi, "jobsets", std::move(jobset), false);
    return ref;
  }

  const ManifestInput& input_;
  const KubernetesOptions& options_;
  Allocator& a_;
};

}  // namespace

std::string collection_path(std::string_view api, const std::string& namespace_name,
                            std::string_view plural) {
  return std::string(api) + "/namespaces/" + namespace_name + "/" + std::string(plural);
}

AppRef build_manifests(const ManifestInput& input, Json& objects, Allocator& allocator) {
  return ManifestBuilder(input, allocator).build(objects);
}

}  // namespace sortie::kubernetes
