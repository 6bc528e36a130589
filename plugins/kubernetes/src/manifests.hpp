// Turns an app into the Kubernetes objects that run it, exactly as they are POSTed:
//   none    - a batch/v1 Job per role (Indexed completion mode, one index per replica) and a
//             headless Service over all pods, so replicas resolve each other by hostname;
//   volcano - one batch.volcano.sh/v1alpha1 Job with a task per replica (TorchX's layout);
//   jobset  - one jobset.x-k8s.io/v1alpha2 JobSet with a replicated Job per role.
// Every generated name is a valid DNS label within the length limits that pod hostnames impose.
#ifndef SORTIE_KUBERNETES_MANIFESTS_HPP
#define SORTIE_KUBERNETES_MANIFESTS_HPP

#include <string>
#include <string_view>

#include "app_ref.hpp"
#include "app_spec.hpp"
#include "json.hpp"
#include "run_options.hpp"

namespace sortie::kubernetes {

// Labels every object and pod carries; describe, list and cancel select on them.
inline constexpr const char* kAppLabel = "sortie.dev/app";
inline constexpr const char* kSessionLabel = "sortie.dev/session";
inline constexpr const char* kRoleLabel = "sortie.dev/role";
inline constexpr const char* kReplicaLabel = "sortie.dev/replica-id";
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "sortie";
// Annotations keep the names as the user wrote them (labels must be sanitised).
inline constexpr const char* kAppNameAnnotation = "sortie.dev/app-name";
inline constexpr const char* kRoleNameAnnotation = "sortie.dev/role-name";
inline constexpr const char* kSessionAnnotation = "sortie.dev/session";
inline constexpr const char* kRank0Env = "SORTIE_RANK0_HOST";

struct ManifestInput {
  AppDef app;
  std::string proposed_name;  // the host's app id: DNS-safe, unique
  std::string session;
  std::string namespace_name;
  KubernetesOptions options;
};

// Fills `objects`, a JSON array of the objects to create in order, each
// {"collection": API path to POST to, "owned_by_first": bool, "manifest": {...}}; an object
// owned_by_first gets ownerReferences to the first one once that exists, so the headless Service
// goes away with the Jobs. Returns the app's reference. Throws INVALID_ARGUMENT for apps the
// chosen mode cannot run, naming the role and field.
AppRef build_manifests(const ManifestInput& input, Json& objects, Allocator& allocator);

// API groups and the collection path of a resource in a namespace.
inline constexpr const char* kBatchApi = "/apis/batch/v1";
inline constexpr const char* kCoreApi = "/api/v1";
inline constexpr const char* kVolcanoApi = "/apis/batch.volcano.sh/v1alpha1";
inline constexpr const char* kJobSetApi = "/apis/jobset.x-k8s.io/v1alpha2";
std::string collection_path(std::string_view api, const std::string& namespace_name,
                            std::string_view plural);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_MANIFESTS_HPP
