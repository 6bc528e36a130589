// The state of an app from what the API server reports: Job, Volcano Job or JobSet conditions
// for the app, and its pods for each replica. Scheduling and container errors (Unschedulable,
// ErrImagePull, CrashLoopBackOff, OOMKilled, ...) are carried into the messages, so a stuck app
// says why instead of staying silently PENDING.
#ifndef SORTIE_KUBERNETES_APP_STATUS_HPP
#define SORTIE_KUBERNETES_APP_STATUS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "app_ref.hpp"
#include "json.hpp"

namespace sortie::kubernetes {

struct ReplicaStatus {
  int64_t id = 0;
  std::string state = "PENDING";
  std::string msg;
  std::optional<int64_t> exit_code;
  std::string hostname;  // the node the pod runs on
  std::string pod;
  int64_t restarts = 0;
  std::optional<int64_t> started_at;
  std::optional<int64_t> finished_at;
};

struct RoleStatus {
  std::string role;
  std::vector<ReplicaStatus> replicas;
};

struct AppStatus {
  std::string name;  // the app's name as the user wrote it
  std::string state = "UNKNOWN";
  std::string msg;
  int64_t num_restarts = 0;
  std::vector<RoleStatus> roles;
};

// jobs: a batch/v1 JobList of the app's Jobs (one per role); pods: a PodList of its pods.
AppStatus status_from_jobs(const Json& jobs, const Json& pods);
// A batch.volcano.sh/v1alpha1 Job and its pods.
AppStatus status_from_volcano_job(const Json& job, const Json& pods);
// A jobset.x-k8s.io/v1alpha2 JobSet and its pods.
AppStatus status_from_jobset(const Json& jobset, const Json& pods);

// The app state only, from a top-level object alone (for list): Job conditions, the Volcano
// phase or JobSet conditions.
std::string state_of_object(Gang gang, const Json& object);

// "sortie.status/1".
std::string to_status_payload(const std::string& app_id, const AppStatus& status);

}  // namespace sortie::kubernetes

#endif  // SORTIE_KUBERNETES_APP_STATUS_HPP
