// The state of an app from what the API server reports: Job, Volcano Job or JobSet conditions
// for the app, and its pods for each replica. Scheduling and container errors (Unschedulable,
// ErrImagePull, CrashLoopBackOff, OOMKilled, ...) are carried into the messages, so a stuck app
// says why instead of staying silently PENDING.
#ifndef SORTIE_KUBERNETES_APP_STATUS_HPP
#define SORTIE_KUBERNETES_APP_STATUS_HPP

#include <cstdint>
#include <map>
#include <sortie/app_status.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "app_ref.hpp"
#include "json.hpp"

namespace sortie::kubernetes {

// A pod's status.phase as a replica's AppState; "" (not reported yet) is PENDING, a phase this
// version does not know (Unknown: the node is unreachable) UNKNOWN.
AppState state_of_pod_phase(std::string_view phase);

// A Volcano Job's status.state.phase as the app's AppState, as TorchX maps it; a phase this
// version does not know is PENDING, as Volcano's own Pending and Inqueue are.
AppState state_of_volcano_phase(std::string_view phase);

// An app as the API server says: its status and what only Kubernetes has.
struct KubernetesApp {
  AppStatus status;
  std::string name;  // the app's name as the user wrote it
  // The newest pod of each replica with one, by (role, replica id).
  std::map<std::pair<std::string, int64_t>, std::string> pods;

  // The newest pod of the replica, "" when it has none.
  std::string pod_of(const std::string& role, int64_t replica) const;
};

// jobs: a batch/v1 JobList of the app's Jobs (one per role); pods: a PodList of its pods.
KubernetesApp status_from_jobs(const Json& jobs, const Json& pods);
// A batch.volcano.sh/v1alpha1 Job and its pods.
KubernetesApp status_from_volcano_job(const Json& job, const Json& pods);
// A jobset.x-k8s.io/v1alpha2 JobSet and its pods.
KubernetesApp status_from_jobset(const Json& jobset, const Json& pods);

// The app state only, from a top-level object alone (for list): Job conditions, the Volcano
// phase or JobSet conditions.
AppState state_of_object(Gang gang, const Json& object);

// "sortie.status/1".
std::string to_status_payload(const std::string& app_id, const KubernetesApp& app);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_APP_STATUS_HPP
