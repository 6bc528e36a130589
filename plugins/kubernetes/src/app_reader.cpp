#include "app_reader.hpp"

#include <sortie/plugin.hpp>

#include "dns_names.hpp"
#include "manifests.hpp"

namespace sortie::kubernetes {
namespace {

std::string in_namespace(const AppRef& ref) { return "in namespace '" + ref.namespace_name + "'"; }

bool being_deleted(const Json& object) {
  return !text_at(object, "metadata.deletionTimestamp").empty();
}

KubernetesApp cancelled(KubernetesApp app) {
  app.status.state = AppState::kCancelled;
  app.status.msg = "cancelled: the app's objects are being deleted";
  return app;
}

}  // namespace

std::string app_selector(const AppRef& ref) { return std::string(kAppLabel) + "=" + ref.name; }

rapidjson::Document read_app_pods(ApiClient& client, const AppRef& ref) {
  return client.get(
      with_label_selector(collection_path(kCoreApi, ref.namespace_name, "pods"), app_selector(ref)),
      "list the pods of app " + ref.name + " " + in_namespace(ref));
}

KubernetesApp read_app_status(ApiClient& client, const AppRef& ref) {
  switch (ref.gang) {
    case Gang::kNone: {
      const rapidjson::Document jobs =
          client.get(with_label_selector(collection_path(kBatchApi, ref.namespace_name, "jobs"),
                                         app_selector(ref)),
                     "list the Jobs of app " + ref.name + " " + in_namespace(ref));
      const Json* items = plugins_common::find_member(jobs, "items");
      if (items == nullptr || !items->IsArray() || items->Empty()) {
        throw Error::not_found("kubernetes: no Jobs labelled " + app_selector(ref) + " " +
                               in_namespace(ref) + " of " + client.connection().server +
                               " (deleted, or submitted to another cluster?)");
      }
      KubernetesApp status = status_from_jobs(jobs, read_app_pods(client, ref));
      bool all_deleted = true;
      for (const Json& job : items->GetArray()) all_deleted = all_deleted && being_deleted(job);
      return all_deleted ? cancelled(std::move(status)) : status;
    }
    case Gang::kVolcano:
    case Gang::kJobSet: {
      const bool volcano = ref.gang == Gang::kVolcano;
      const std::string kind = volcano ? "Volcano Job" : "JobSet";
      const auto object =
          client.get_if_exists(collection_path(volcano ? kVolcanoApi : kJobSetApi,
                                               ref.namespace_name, volcano ? "jobs" : "jobsets") +
                                   "/" + ref.name,
                               "get " + kind + " '" + ref.name + "' " + in_namespace(ref));
      if (!object) {
        throw Error::not_found("kubernetes: no " + kind + " '" + ref.name + "' " +
                               in_namespace(ref) + " of " + client.connection().server +
                               " (deleted, or submitted to another cluster?)");
      }
      const rapidjson::Document pods = read_app_pods(client, ref);
      KubernetesApp status =
          volcano ? status_from_volcano_job(*object, pods) : status_from_jobset(*object, pods);
      return being_deleted(*object) ? cancelled(std::move(status)) : status;
    }
  }
  throw Error::internal("unknown app kind");
}

int delete_app(ApiClient& client, const AppRef& ref) {
  int deleted = 0;
  switch (ref.gang) {
    case Gang::kNone: {
      const std::string jobs_path = collection_path(kBatchApi, ref.namespace_name, "jobs");
      const rapidjson::Document jobs =
          client.get(with_label_selector(jobs_path, app_selector(ref)),
                     "list the Jobs of app " + ref.name + " " + in_namespace(ref));
      if (const Json* items = plugins_common::find_member(jobs, "items");
          items && items->IsArray()) {
        for (const Json& job : items->GetArray()) {
          const std::string name = text_at(job, "metadata.name");
          deleted += client.remove(jobs_path + "/" + name,
                                   "delete Job '" + name + "' " + in_namespace(ref));
        }
      }
      // The Service is owned by the first Job and would be collected with it; deleting it here
      // too covers a submission that failed before the owner reference was set.
      const std::string service = dns1035_label(ref.name);
      deleted +=
          client.remove(collection_path(kCoreApi, ref.namespace_name, "services") + "/" + service,
                        "delete Service '" + service + "' " + in_namespace(ref));
      break;
    }
    case Gang::kVolcano:
      deleted +=
          client.remove(collection_path(kVolcanoApi, ref.namespace_name, "jobs") + "/" + ref.name,
                        "delete Volcano Job '" + ref.name + "' " + in_namespace(ref));
      break;
    case Gang::kJobSet:
      deleted +=
          client.remove(collection_path(kJobSetApi, ref.namespace_name, "jobsets") + "/" + ref.name,
                        "delete JobSet '" + ref.name + "' " + in_namespace(ref));
      break;
  }
  return deleted;
}

}  // namespace sortie::kubernetes
