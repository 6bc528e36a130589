#include "kubernetes_scheduler.hpp"

#include <set>
#include <sortie/app_list.hpp>
#include <sortie/app_state.hpp>
#include <sortie/dryrun_input.hpp>
#include <utility>
#include <vector>

#include "app_reader.hpp"
#include "app_spec.hpp"
#include "dns_names.hpp"
#include "image_pushes.hpp"
#include "json.hpp"
#include "manifests.hpp"
#include "pod_logs.hpp"
#include "run_options.hpp"

namespace sortie::kubernetes {
namespace {

// How long one image_repo push may take: an image of several GB over a slow uplink.
constexpr double kPushTimeoutS = 1800.0;

std::string read_state_dir(std::string_view config) {
  const std::string what = "sortie.scheduler_config/1";
  const rapidjson::Document document = plugins_common::parse_object(config, what);
  std::string state_dir = plugins_common::string_member(document, "state_dir", what);
  if (state_dir.empty() || state_dir[0] != '/') {
    throw Error::invalid_argument("kubernetes: " + what +
                                  " member 'state_dir' must be an absolute path");
  }
  return state_dir;
}

std::string read_session(std::string_view config) {
  const rapidjson::Document document =
      plugins_common::parse_object(config, "sortie.scheduler_config/1");
  return plugins_common::string_member(document, "session", "sortie.scheduler_config/1", "default");
}

std::string describe_object(const Json& manifest) {
  return text_at(manifest, "kind") + " '" + text_at(manifest, "metadata.name") + "'";
}

// The dry-run text: every manifest as it will be POSTed, as a YAML stream of JSON documents
// (kubectl apply -f reads it).
std::string dryrun_text(const AppRef& ref, const std::string& target, const Json& objects) {
  std::string text = "# kubernetes app " + ref.id() + " (" + gang_name(ref.gang) +
                     ") in namespace " + ref.namespace_name + " on " + target + "\n# " +
                     std::to_string(objects.Size()) + " object(s), created in this order\n";
  for (const Json& object : objects.GetArray()) {
    text += "---\n# POST " + text_at(object, "collection");
    if (plugins_common::bool_member(object, "owned_by_first", "object", false)) {
      text += " (ownerReferences to " + describe_object(objects[0]["manifest"]) +
              " are added at submission, once its uid is known)";
    }
    text += "\n" + plugins_common::to_pretty_json_text(object["manifest"]) + "\n";
  }
  return text;
}

}  // namespace

KubernetesScheduler::KubernetesScheduler(std::string_view config)
    : session_(read_session(config)), records_(read_state_dir(config)) {}

std::string KubernetesScheduler::run_options() { return run_options_payload(); }

std::string KubernetesScheduler::dryrun(std::string_view input_text) {
  DryrunInput input = read_dryrun_input(input_text);
  ManifestInput manifest_input;
  manifest_input.options = parse_run_options(input.cfg_json);
  const std::vector<image_push::ImagePush> pushes =
      plan_image_pushes(input.app, manifest_input.options.image_repo);
  refuse_unsupported(input.app);
  manifest_input.proposed_name = input.app_id.empty() ? input.app.name : input.app_id;
  manifest_input.session = input.session.empty() ? session_ : input.session;
  manifest_input.app = std::move(input.app);
  manifest_input.namespace_name = manifest_input.options.namespace_name;

  std::string target;
  try {
    const ClusterConnection connection = load_connection(manifest_input.options.connection);
    target = connection.server + " (" + connection.source + ")";
    if (manifest_input.namespace_name.empty()) {
      manifest_input.namespace_name = connection.namespace_name;
    }
  } catch (const Error& e) {
    // A dry run needs no cluster: without any configuration the namespace is "default".
    if (e.code() != Code::kFailedPrecondition) throw;
    target = "no cluster configured yet";
    if (manifest_input.namespace_name.empty()) manifest_input.namespace_name = "default";
  }

  rapidjson::Document output(rapidjson::kObjectType);
  Allocator& a = output.GetAllocator();
  Json objects(rapidjson::kArrayType);
  const AppRef ref = build_manifests(manifest_input, objects, a);
  const std::string text =
      (pushes.empty() ? ""
                      : image_push::image_pushes_text(
                            pushes, image_push::docker_socket_from_environment(push_origin()),
                            push_origin())) +
      dryrun_text(ref, target, objects);
  // What `kubectl apply -f -` takes: the manifests as a v1 List (P-7 `document`).
  Json items(rapidjson::kArrayType);
  for (const Json& object : objects.GetArray()) items.PushBack(Json(object["manifest"], a), a);
  Json document(rapidjson::kObjectType);
  set_string(document, "apiVersion", "v1", a);
  set_string(document, "kind", "List", a);
  set_member(document, "items", std::move(items), a);

  Json request(rapidjson::kObjectType);
  set_string(request, "namespace", ref.namespace_name, a);
  set_string(request, "gang_scheduler", gang_name(ref.gang), a);
  set_string(request, "kubeconfig", manifest_input.options.connection.kubeconfig, a);
  set_string(request, "context", manifest_input.options.connection.context, a);
  set_member(request, "objects", std::move(objects), a);
  if (!pushes.empty()) {
    set_member(request, "image_pushes", image_push::image_pushes_to_json(pushes, a), a);
  }
  set_string(output, "schema", "sortie.dryrun/1", a);
  set_string(output, "app_id", ref.id(), a);
  set_member(output, "request", std::move(request), a);
  set_member(output, "document", std::move(document), a);
  set_string(output, "text", text, a);
  return plugins_common::to_json_text(output);
}

std::string KubernetesScheduler::schedule(std::string_view request_text) {
  const std::string what = "sortie.dryrun/1";
  rapidjson::Document document = plugins_common::parse_object(request_text, what);
  const std::string app_id = plugins_common::string_member(document, "app_id", what);
  const AppRef ref = parse_app_ref(app_id);
  const Json* request = plugins_common::object_member(document, "request", what);
  const Json* objects =
      request != nullptr ? plugins_common::array_member(*request, "objects", what) : nullptr;
  if (objects == nullptr || objects->Empty()) {
    throw Error::invalid_argument(
        what + ": member 'request.objects' is required; schedule what dryrun() wrote");
  }
  AppRecord record;
  record.connection.kubeconfig = plugins_common::string_member(*request, "kubeconfig", what);
  record.connection.context = plugins_common::string_member(*request, "context", what);
  ApiClient& client = client_for(record.connection);
  if (const Json* pushes = plugins_common::find_member(*request, "image_pushes")) {
    image_push::push_images(image_push::image_pushes_from_json(*pushes, what), kPushTimeoutS,
                            push_origin(), [] { return std::string(); });
  }
  // Recorded first, so that a submission cut short can still be found and cancelled.
  records_.save(app_id, record);

  Allocator& a = document.GetAllocator();
  std::vector<std::pair<std::string, std::string>> created;  // path, description
  Json owner(rapidjson::kObjectType);
  for (const Json& object : objects->GetArray()) {
    const std::string collection =
        plugins_common::string_member(object, "collection", what + " object");
    const Json* manifest_value =
        plugins_common::object_member(object, "manifest", what + " object");
    if (manifest_value == nullptr) {
      throw Error::invalid_argument(what + ": an object has no 'manifest'");
    }
    Json manifest(*manifest_value, a);
    const std::string description = describe_object(manifest);
    if (plugins_common::bool_member(object, "owned_by_first", what + " object", false) &&
        !created.empty()) {
      Json owners(rapidjson::kArrayType);
      owners.PushBack(Json(owner, a), a);
      set_member(manifest["metadata"], "ownerReferences", std::move(owners), a);
    }
    try {
      const rapidjson::Document response =
          client.post(collection, plugins_common::to_json_text(manifest),
                      "create " + description + " in namespace '" + ref.namespace_name + "'");
      if (created.empty()) {
        set_string(owner, "apiVersion", text_at(manifest, "apiVersion"), a);
        set_string(owner, "kind", text_at(manifest, "kind"), a);
        set_string(owner, "name", text_at(manifest, "metadata.name"), a);
        set_string(owner, "uid", text_at(response, "metadata.uid"), a);
      }
      created.emplace_back(collection + "/" + text_at(manifest, "metadata.name"), description);
    } catch (const Error& e) {
      std::string message = e.what();
      if (e.code() == Code::kAlreadyExists) message += "; submit again for a fresh app id";
      if (e.code() == Code::kNotFound) {
        message += "; this cluster does not serve " + collection +
                   " (gang_scheduler=volcano needs Volcano installed, jobset the JobSet "
                   "controller)";
      }
      if (!created.empty()) {
        message += "; deleted the " + std::to_string(created.size()) +
                   " object(s) this submission had created";
      }
      for (auto it = created.rbegin(); it != created.rend(); ++it) {
        try {
          client.remove(it->first, "delete " + it->second);
        } catch (const Error& cleanup) {
          message += std::string("; could not delete ") + it->second + ": " + cleanup.what();
        }
      }
      throw Error(e.code(), message);
    }
  }
  return app_id;
}

std::string KubernetesScheduler::describe(std::string_view app_id_view) {
  const std::string app_id(app_id_view);
  const AppRef ref = parse_app_ref(app_id);
  const auto record = records_.load(app_id);
  try {
    return to_status_payload(app_id, read_app_status(client_for(connection_of(app_id)), ref));
  } catch (const Error& e) {
    if (e.code() != Code::kNotFound || !record || !record->cancelled) throw;
    KubernetesApp app;
    app.status.state = AppState::kCancelled;
    app.status.msg = "cancelled; its Kubernetes objects were deleted";
    return to_status_payload(app_id, app);
  }
}

std::string KubernetesScheduler::list(std::string_view filter_text) {
  std::string session;
  if (!filter_text.empty()) {
    const rapidjson::Document filter =
        plugins_common::parse_object(filter_text, "sortie.list_filter/1");
    session = plugins_common::string_member(filter, "session", "sortie.list_filter/1");
  }
  std::string selector = std::string(kManagedByLabel) + "=" + kManagedByValue;
  if (!session.empty()) selector += std::string(",") + kSessionLabel + "=" + label_value(session);

  // Where to look: the default context's namespace, and wherever this machine submitted apps.
  std::map<std::pair<std::string, std::string>, std::pair<ConnectionChoice, std::set<std::string>>>
      targets;
  const auto records = records_.all();
  try {
    ApiClient& client = client_for({});
    targets[{"", ""}].second.insert(client.connection().namespace_name);
  } catch (const Error& e) {
    // No default configuration: the apps this machine submitted can still be listed.
    if (e.code() != Code::kFailedPrecondition || records.empty()) throw;
  }
  for (const auto& [app_id, record] : records) {
    auto& target = targets[{record.connection.kubeconfig, record.connection.context}];
    target.first = record.connection;
    try {
      target.second.insert(parse_app_ref(app_id).namespace_name);
    } catch (const Error&) {
      // a record that is not an app id of this scheduler: nothing to list for it
    }
  }

  struct Listed {
    std::string name;
    std::set<AppState> states;
  };
  std::map<std::string, Listed> apps;
  for (const auto& [key, target] : targets) {
    ApiClient& client = client_for(target.first);
    for (const std::string& ns : target.second) {
      for (const Gang gang : {Gang::kNone, Gang::kVolcano, Gang::kJobSet}) {
        const char* api = gang == Gang::kNone      ? kBatchApi
                          : gang == Gang::kVolcano ? kVolcanoApi
                                                   : kJobSetApi;
        const char* plural = gang == Gang::kJobSet ? "jobsets" : "jobs";
        // 404: the cluster does not serve this kind (Volcano or JobSet not installed).
        const auto list = client.get_if_exists(
            with_label_selector(collection_path(api, ns, plural), selector),
            std::string("list ") + gang_name(gang) + " apps in namespace '" + ns + "'");
        const Json* items = list ? plugins_common::find_member(*list, "items") : nullptr;
        if (items == nullptr || !items->IsArray()) continue;
        for (const Json& object : items->GetArray()) {
          const Json* labels = value_at(object, "metadata.labels");
          const Json* app_label =
              labels != nullptr ? plugins_common::find_member(*labels, kAppLabel) : nullptr;
          if (app_label == nullptr || !app_label->IsString()) continue;
          AppRef ref{gang, ns, app_label->GetString()};
          Listed& listed = apps[ref.id()];
          const Json* annotations = value_at(object, "metadata.annotations");
          const Json* name = annotations != nullptr
                                 ? plugins_common::find_member(*annotations, kAppNameAnnotation)
                                 : nullptr;
          if (name != nullptr && name->IsString()) listed.name = name->GetString();
          listed.states.insert(state_of_object(gang, object));
        }
      }
    }
  }

  std::vector<ListedApp> list;
  for (const auto& [app_id, listed] : apps) {
    // An app of several Jobs: failed if one failed, done when all are, running if one runs.
    AppState state = AppState::kPending;
    for (AppState candidate : {AppState::kRunning, AppState::kSucceeded, AppState::kFailed}) {
      if (listed.states.count(candidate) != 0) state = candidate;
    }
    if (state == AppState::kSucceeded && listed.states.size() > 1) state = AppState::kRunning;
    list.push_back({app_id, listed.name, state});
  }
  return write_app_list(list);
}

void KubernetesScheduler::cancel(std::string_view app_id_view) {
  const std::string app_id(app_id_view);
  const AppRef ref = parse_app_ref(app_id);
  const auto record = records_.load(app_id);
  ApiClient& client = client_for(connection_of(app_id));
  try {
    // A finished app keeps its objects: they hold its status and logs.
    if (is_terminal(read_app_status(client, ref).status.state)) return;
  } catch (const Error& e) {
    if (e.code() == Code::kNotFound && record && record->cancelled) return;
    throw;
  }
  delete_app(client, ref);
  records_.save(app_id, AppRecord{connection_of(app_id), true});
}

std::unique_ptr<LogStream> KubernetesScheduler::log_open(std::string_view app_id_view,
                                                         std::string_view request) {
  const std::string app_id(app_id_view);
  const AppRef ref = parse_app_ref(app_id);
  return std::make_unique<PodLogStream>(client_for(connection_of(app_id)).connection(), ref,
                                        request);
}

ApiClient& KubernetesScheduler::client_for(const ConnectionChoice& choice) {
  auto& client = clients_[choice.kubeconfig + "\n" + choice.context];
  if (!client) client = std::make_unique<ApiClient>(load_connection(choice));
  return *client;
}

ConnectionChoice KubernetesScheduler::connection_of(const std::string& app_id) const {
  const auto record = records_.load(app_id);
  return record ? record->connection : ConnectionChoice{};
}

}  // namespace sortie::kubernetes
