#include "app_status.hpp"

#include <algorithm>
#include <utility>

#include "manifests.hpp"

namespace sortie::kubernetes {
namespace {

constexpr const char* kCompletionIndexKey = "batch.kubernetes.io/job-completion-index";

// metadata.labels / metadata.annotations entries: keys contain dots, so no dotted paths here.
std::string map_entry(const Json& object, std::string_view map_path, std::string_view key) {
  const Json* map = value_at(object, map_path);
  const Json* value = map != nullptr ? plugins_common::find_member(*map, key) : nullptr;
  return value != nullptr && value->IsString()
             ? std::string(value->GetString(), value->GetStringLength())
             : std::string();
}

std::optional<int64_t> timestamp_at(const Json& object, std::string_view path) {
  return parse_rfc3339(text_at(object, path));
}

const Json* items_of(const Json& list) {
  const Json* items = plugins_common::find_member(list, "items");
  return items != nullptr && items->IsArray() ? items : nullptr;
}

std::string join_reason(const std::string& reason, const std::string& message) {
  if (reason.empty()) return message;
  if (message.empty()) return reason;
  return reason + ": " + message;
}

struct Condition {
  bool present = false;
  std::string reason;
  std::string message;
};

// The condition of `type` whose status is "True".
Condition true_condition(const Json& object, std::string_view type) {
  Condition found;
  const Json* conditions = value_at(object, "status.conditions");
  if (conditions == nullptr || !conditions->IsArray()) return found;
  for (const Json& condition : conditions->GetArray()) {
    if (text_at(condition, "type") == type && text_at(condition, "status") == "True") {
      found.present = true;
      found.reason = text_at(condition, "reason");
      found.message = text_at(condition, "message");
    }
  }
  return found;
}

const Json* first_container_status(const Json& pod) {
  const Json* statuses = value_at(pod, "status.containerStatuses");
  if (statuses == nullptr || !statuses->IsArray() || statuses->Empty()) return nullptr;
  return &(*statuses)[0];
}

// Waiting reasons that are normal steps of a start, not problems worth showing.
bool is_routine_wait(const std::string& reason) {
  return reason.empty() || reason == "ContainerCreating" || reason == "PodInitializing";
}

struct PodReplica {
  ReplicaStatus replica;
  std::string pod;  // "" when it has none
};

PodReplica replica_from_pods(int64_t id, std::vector<const Json*> pods) {
  PodReplica found;
  ReplicaStatus& replica = found.replica;
  replica.id = id;
  replica.state = AppState::kPending;
  if (pods.empty()) {
    replica.msg = "no pod yet";
    return found;
  }
  std::stable_sort(pods.begin(), pods.end(), [](const Json* a, const Json* b) {
    return timestamp_at(*a, "metadata.creationTimestamp").value_or(0) <
           timestamp_at(*b, "metadata.creationTimestamp").value_or(0);
  });
  const Json& pod = *pods.back();
  found.pod = text_at(pod, "metadata.name");
  replica.hostname = text_at(pod, "spec.nodeName");
  replica.restarts = static_cast<int64_t>(pods.size()) - 1;
  replica.started_at = timestamp_at(pod, "status.startTime");
  const std::string phase = text_at(pod, "status.phase");
  const Json* container = first_container_status(pod);
  std::string waiting_reason, waiting_message;
  const Json* terminated = nullptr;
  if (container != nullptr) {
    replica.restarts += int_at(*container, "restartCount").value_or(0);
    waiting_reason = text_at(*container, "state.waiting.reason");
    waiting_message = text_at(*container, "state.waiting.message");
    terminated = value_at(*container, "state.terminated");
    if (const auto started = timestamp_at(*container, "state.running.startedAt")) {
      replica.started_at = started;
    }
  }
  if (terminated != nullptr) {
    replica.exit_code = int_at(*terminated, "exitCode");
    replica.finished_at = timestamp_at(*terminated, "finishedAt");
  }

  replica.state = state_of_pod_phase(phase);
  if (replica.state == AppState::kFailed) {
    std::string reason = text_at(pod, "status.reason");  // e.g. Evicted, DeadlineExceeded
    std::string message = text_at(pod, "status.message");
    if (reason.empty() && terminated != nullptr) {
      reason = text_at(*terminated, "reason");  // e.g. Error, OOMKilled
      message = text_at(*terminated, "message");
    }
    replica.msg = join_reason(reason, message);
    if (replica.exit_code) replica.msg += " (exit code " + std::to_string(*replica.exit_code) + ")";
  } else if (replica.state == AppState::kRunning) {
    if (!is_routine_wait(waiting_reason)) {
      replica.msg = join_reason(waiting_reason, waiting_message);
      if (const auto last_exit = int_at(*container, "lastState.terminated.exitCode")) {
        replica.msg += " (last exit code " + std::to_string(*last_exit) + ")";
      }
    }
  } else if (replica.state == AppState::kPending) {
    const Json* conditions = value_at(pod, "status.conditions");
    if (conditions != nullptr && conditions->IsArray()) {
      for (const Json& condition : conditions->GetArray()) {
        if (text_at(condition, "type") == "PodScheduled" &&
            text_at(condition, "status") == "False") {
          replica.msg = join_reason(text_at(condition, "reason"), text_at(condition, "message"));
        }
      }
    }
    if (!is_routine_wait(waiting_reason)) {
      replica.msg = join_reason(waiting_reason, waiting_message);
    }
  } else if (replica.state == AppState::kUnknown) {
    replica.msg = "pod phase " + phase;
  }
  if (!text_at(pod, "metadata.deletionTimestamp").empty() && replica.state == AppState::kRunning) {
    replica.msg = replica.msg.empty() ? "terminating" : replica.msg + "; terminating";
  }
  return found;
}

// The pods of an app by (role name, replica id).
using PodIndex = std::map<std::pair<std::string, int64_t>, std::vector<const Json*>>;

PodIndex index_pods(const Json& pods) {
  PodIndex index;
  const Json* items = items_of(pods);
  if (items == nullptr) return index;
  for (const Json& pod : items->GetArray()) {
    const std::string role = map_entry(pod, "metadata.annotations", kRoleNameAnnotation);
    std::string replica = map_entry(pod, "metadata.labels", kReplicaLabel);
    if (replica.empty()) replica = map_entry(pod, "metadata.labels", kCompletionIndexKey);
    if (replica.empty()) replica = map_entry(pod, "metadata.annotations", kCompletionIndexKey);
    if (role.empty() || replica.empty() ||
        replica.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    index[{role, std::stoll(replica)}].push_back(&pod);
  }
  return index;
}

void add_role(KubernetesApp& app, const std::string& role, int64_t replicas, const PodIndex& pods) {
  RoleStatus& status = app.status.roles.emplace_back();
  status.role = role;
  for (int64_t id = 0; id < replicas; ++id) {
    const auto it = pods.find({role, id});
    PodReplica found =
        replica_from_pods(id, it == pods.end() ? std::vector<const Json*>{} : it->second);
    if (!found.pod.empty()) app.pods[{role, id}] = found.pod;
    status.replicas.push_back(std::move(found.replica));
  }
}

// What the pods say about a live app: RUNNING once one replica runs (or finished), PENDING
// before; the replicas' problems, if any, as the message.
void summarise_live(AppStatus& app) {
  bool started = false;
  std::string problems;
  for (const RoleStatus& role : app.roles) {
    for (const ReplicaStatus& replica : role.replicas) {
      started = started || replica.state == AppState::kRunning ||
                replica.state == AppState::kSucceeded || replica.state == AppState::kFailed;
      if (!replica.msg.empty() && replica.msg != "no pod yet") {
        problems += (problems.empty() ? "" : "; ") + role.role + "/" + std::to_string(replica.id) +
                    ": " + replica.msg;
      }
    }
  }
  app.state = started ? AppState::kRunning : AppState::kPending;
  if (app.msg.empty()) {
    app.msg = problems;
  } else if (!problems.empty()) {
    app.msg += "; " + problems;
  }
}

void count_restarts(AppStatus& app) {
  for (const RoleStatus& role : app.roles) {
    for (const ReplicaStatus& replica : role.replicas) app.num_restarts += replica.restarts;
  }
}

// Replicas without a pod take the state of a finished app (pods may have been garbage collected).
void settle_podless_replicas(KubernetesApp& app) {
  const AppState state = app.status.state;
  if (state != AppState::kSucceeded && state != AppState::kFailed) return;
  for (RoleStatus& role : app.status.roles) {
    for (ReplicaStatus& replica : role.replicas) {
      if (app.pods.count({role.role, replica.id}) == 0) {
        replica.state = state;
        replica.msg.clear();
      }
    }
  }
}

// The first failed replica's reason, to explain an app failure.
std::string first_failure(const AppStatus& app) {
  for (const RoleStatus& role : app.roles) {
    for (const ReplicaStatus& replica : role.replicas) {
      if (replica.state == AppState::kFailed && !replica.msg.empty()) {
        return role.role + "/" + std::to_string(replica.id) + ": " + replica.msg;
      }
    }
  }
  return "";
}

void append(std::string& text, const std::string& more) {
  if (!more.empty()) text += (text.empty() ? "" : "; ") + more;
}

}  // namespace

AppState state_of_pod_phase(std::string_view phase) {
  static constexpr std::pair<std::string_view, AppState> kPhases[] = {
      {"", AppState::kPending},        {"Pending", AppState::kPending},
      {"Running", AppState::kRunning}, {"Succeeded", AppState::kSucceeded},
      {"Failed", AppState::kFailed},
  };
  return state_in(kPhases, phase);
}

AppState state_of_volcano_phase(std::string_view phase) {
  static constexpr std::pair<std::string_view, AppState> kPhases[] = {
      {"Pending", AppState::kPending},    {"Inqueue", AppState::kPending},
      {"Running", AppState::kRunning},    {"Aborting", AppState::kRunning},
      {"Restarting", AppState::kRunning}, {"Terminating", AppState::kRunning},
      {"Completing", AppState::kRunning}, {"Completed", AppState::kSucceeded},
      {"Failed", AppState::kFailed},      {"Terminated", AppState::kFailed},
      {"Aborted", AppState::kCancelled},
  };
  return state_in(kPhases, phase, AppState::kPending);
}

std::string KubernetesApp::pod_of(const std::string& role, int64_t replica) const {
  const auto it = pods.find({role, replica});
  return it == pods.end() ? std::string() : it->second;
}

KubernetesApp status_from_jobs(const Json& jobs, const Json& pods) {
  KubernetesApp found;
  AppStatus& app = found.status;
  const PodIndex index = index_pods(pods);
  const Json* items = items_of(jobs);
  bool all_complete = items != nullptr && !items->Empty();
  std::string failures, suspended;
  if (items != nullptr) {
    for (const Json& job : items->GetArray()) {
      if (found.name.empty()) {
        found.name = map_entry(job, "metadata.annotations", kAppNameAnnotation);
      }
      std::string role = map_entry(job, "metadata.annotations", kRoleNameAnnotation);
      if (role.empty()) role = text_at(job, "metadata.name");
      add_role(found, role, int_at(job, "spec.completions").value_or(1), index);
      const Condition failed = true_condition(job, "Failed");
      if (failed.present) {
        append(failures,
               "role " + role + ": Job failed: " + join_reason(failed.reason, failed.message));
      }
      all_complete = all_complete && true_condition(job, "Complete").present;
      if (true_condition(job, "Suspended").present) {
        append(suspended,
               "role " + role + ": Job is suspended (waiting for its queue to admit it)");
      }
    }
  }
  count_restarts(app);
  if (!failures.empty()) {
    app.state = AppState::kFailed;
    app.msg = failures;
    append(app.msg, first_failure(app));
  } else if (all_complete) {
    app.state = AppState::kSucceeded;
  } else {
    app.msg = suspended;
    summarise_live(app);
  }
  settle_podless_replicas(found);
  return found;
}

KubernetesApp status_from_volcano_job(const Json& job, const Json& pods) {
  KubernetesApp found;
  AppStatus& app = found.status;
  found.name = map_entry(job, "metadata.annotations", kAppNameAnnotation);
  const PodIndex index = index_pods(pods);
  // Tasks are one per replica; roles are recovered from the tasks' pod templates.
  std::vector<std::pair<std::string, int64_t>> roles;
  if (const Json* tasks = value_at(job, "spec.tasks"); tasks != nullptr && tasks->IsArray()) {
    for (const Json& task : tasks->GetArray()) {
      const std::string role =
          map_entry(task, "template.metadata.annotations", kRoleNameAnnotation);
      const auto known = std::find_if(roles.begin(), roles.end(),
                                      [&](const auto& entry) { return entry.first == role; });
      if (known == roles.end()) {
        roles.emplace_back(role, 1);
      } else {
        ++known->second;
      }
    }
  }
  for (const auto& [role, replicas] : roles) add_role(found, role, replicas, index);
  count_restarts(app);
  app.num_restarts = std::max(app.num_restarts, int_at(job, "status.retryCount").value_or(0));
  const std::string phase = text_at(job, "status.state.phase");
  const std::string reason =
      join_reason(text_at(job, "status.state.reason"), text_at(job, "status.state.message"));
  app.state = state_of_object(Gang::kVolcano, job);
  if (app.state == AppState::kFailed || app.state == AppState::kCancelled) {
    app.msg = "Volcano job " + phase;
    if (!reason.empty()) app.msg += ": " + reason;
    append(app.msg, first_failure(app));
  } else if (app.state != AppState::kSucceeded) {
    const AppState state = app.state;  // Volcano's view: PENDING until the gang is admitted
    summarise_live(app);
    app.state = state;
    if (state == AppState::kRunning && phase != "Running") {
      append(app.msg, "Volcano job " + phase);
    }
  }
  settle_podless_replicas(found);
  return found;
}

KubernetesApp status_from_jobset(const Json& jobset, const Json& pods) {
  KubernetesApp found;
  AppStatus& app = found.status;
  found.name = map_entry(jobset, "metadata.annotations", kAppNameAnnotation);
  const PodIndex index = index_pods(pods);
  if (const Json* jobs = value_at(jobset, "spec.replicatedJobs"); jobs && jobs->IsArray()) {
    for (const Json& rjob : jobs->GetArray()) {
      std::string role =
          map_entry(rjob, "template.spec.template.metadata.annotations", kRoleNameAnnotation);
      if (role.empty()) role = text_at(rjob, "name");
      add_role(found, role, int_at(rjob, "template.spec.completions").value_or(1), index);
    }
  }
  count_restarts(app);
  app.num_restarts = std::max(app.num_restarts, int_at(jobset, "status.restarts").value_or(0));
  app.state = state_of_object(Gang::kJobSet, jobset);
  if (app.state == AppState::kFailed) {
    const Condition failed = true_condition(jobset, "Failed");
    app.msg = "JobSet failed: " + join_reason(failed.reason, failed.message);
    append(app.msg, first_failure(app));
  } else if (app.state != AppState::kSucceeded) {
    if (true_condition(jobset, "Suspended").present) {
      app.msg = "JobSet is suspended (waiting for its queue to admit it)";
    }
    summarise_live(app);
  }
  settle_podless_replicas(found);
  return found;
}

AppState state_of_object(Gang gang, const Json& object) {
  switch (gang) {
    case Gang::kNone:
      if (true_condition(object, "Failed").present) return AppState::kFailed;
      if (true_condition(object, "Complete").present) return AppState::kSucceeded;
      return int_at(object, "status.active").value_or(0) > 0 ? AppState::kRunning
                                                             : AppState::kPending;
    case Gang::kVolcano:
      return state_of_volcano_phase(text_at(object, "status.state.phase"));
    case Gang::kJobSet:
      if (true_condition(object, "Failed").present) return AppState::kFailed;
      if (true_condition(object, "Completed").present) return AppState::kSucceeded;
      {
        const Json* statuses = value_at(object, "status.replicatedJobsStatus");
        if (statuses != nullptr && statuses->IsArray()) {
          for (const Json& status : statuses->GetArray()) {
            if (int_at(status, "active").value_or(0) > 0) return AppState::kRunning;
          }
        }
      }
      return AppState::kPending;
  }
  return AppState::kUnknown;
}

std::string to_status_payload(const std::string& app_id, const KubernetesApp& app) {
  AppStatus payload = app.status;
  payload.app_id = app_id;
  payload.structured_error_msg = payload.state == AppState::kFailed ? payload.msg : "";
  payload.metadata = {{"name", json_string(app.name)}};
  return write_status(payload);
}

}  // namespace sortie::kubernetes
