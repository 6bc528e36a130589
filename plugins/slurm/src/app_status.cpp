#include "app_status.hpp"

#include <sstream>

#include "pending_reason.hpp"
#include "replica_files.hpp"

namespace sortie::slurm {

AppState app_state_of(std::string_view state) {
  if (state == "PENDING" || state == "REQUEUED" || state == "REQUEUE_HOLD" ||
      state == "REQUEUE_FED" || state == "CONFIGURING" || state == "RESV_DEL_HOLD" ||
      state == "SUSPENDED" || state == "STOPPED") {
    return AppState::kPending;
  }
  if (state == "RUNNING" || state == "COMPLETING" || state == "STAGE_OUT" || state == "SIGNALING" ||
      state == "RESIZING") {
    return AppState::kRunning;
  }
  if (state == "COMPLETED") return AppState::kSucceeded;
  if (state == "CANCELLED") return AppState::kCancelled;
  if (state == "FAILED" || state == "TIMEOUT" || state == "NODE_FAIL" || state == "OUT_OF_MEMORY" ||
      state == "BOOT_FAIL" || state == "DEADLINE" || state == "PREEMPTED" ||
      state == "SPECIAL_EXIT" || state == "REVOKED") {
    return AppState::kFailed;
  }
  return AppState::kUnknown;
}

int64_t attempts_started(const std::string& job_dir) {
  std::istringstream ledger(read_text_file(job_dir + "/attempts"));
  int64_t started = 0;
  for (std::string line; std::getline(ledger, line);) started += line.rfind("start ", 0) == 0;
  return started;
}

AppStatus build_status(const AppRecord& record, const JobFacts* facts, bool accounting_disabled) {
  const BatchPlan& plan = record.plan;
  AppStatus status;
  status.app_id = plan.app_id;
  std::optional<FinalState> final_state = AppRecords::final_state(plan.job_dir);
  std::string slurm_state;
  if (final_state) {
    slurm_state = final_state->state;
  } else if (facts != nullptr) {
    slurm_state = facts->state;
    if (is_terminal(app_state_of(slurm_state))) {
      AppRecords::keep_final_state(plan.job_dir, {slurm_state, facts->exit_code});
    }
  }
  status.state = slurm_state.empty() ? AppState::kUnknown : app_state_of(slurm_state);
  if (slurm_state.empty()) {
    status.msg = "Slurm has forgotten job " + record.job_id +
                 (accounting_disabled ? " (it left squeue and accounting is disabled, so sacct "
                                        "cannot say how it ended)"
                                      : " (neither squeue nor sacct knows it)");
  } else if (status.state == AppState::kPending && facts != nullptr) {
    status.msg = explain_pending(facts->reason, record.job_id);
  } else if (slurm_state == "TIMEOUT") {
    status.msg = "job " + record.job_id + " reached its time limit";
  } else if (slurm_state == "PREEMPTED" || slurm_state == "NODE_FAIL") {
    status.msg = "job " + record.job_id + " ended " + slurm_state;
  }
  const int64_t attempts = attempts_started(plan.job_dir);
  const int64_t attempt = attempts > 0 ? attempts - 1 : 0;
  status.num_restarts = attempt;
  for (const RolePlan& role : plan.roles) {
    RoleStatus role_status;
    role_status.role = role.name;
    for (int64_t id = 0; id < role.replicas; ++id) {
      ReplicaStatus replica;
      replica.id = id;
      replica.restarts = attempt;
      const ReplicaRecord files =
          read_replica_record(attempt_dir(plan.job_dir, role.name, id, attempt));
      replica.hostname = files.host;
      replica.started_at = files.started_at;
      replica.finished_at = files.finished_at;
      if (files.exit_code) {
        replica.exit_code = files.exit_code;
        replica.state = *files.exit_code == 0 ? AppState::kSucceeded : AppState::kFailed;
        if (files.signal != 0) replica.msg = "killed by signal " + std::to_string(files.signal);
        if (status.state == AppState::kCancelled && *files.exit_code != 0) {
          replica.state = AppState::kCancelled;
        }
      } else if (files.started_at && !is_terminal(status.state)) {
        replica.state = AppState::kRunning;
      } else if (is_terminal(status.state) || status.state == AppState::kPending) {
        replica.state = status.state;
      } else {
        replica.state = AppState::kPending;
      }
      role_status.replicas.push_back(std::move(replica));
    }
    status.roles.push_back(std::move(role_status));
  }
  status.metadata.emplace_back("slurm.job_id", json_string(record.job_id));
  status.metadata.emplace_back("slurm.state", json_string(slurm_state));
  if (facts != nullptr && !facts->reason.empty() && facts->reason != "None") {
    status.metadata.emplace_back("slurm.reason", json_string(facts->reason));
  }
  status.metadata.emplace_back("slurm.attempts", std::to_string(attempts));
  status.metadata.emplace_back("slurm.job_dir", json_string(plan.job_dir));
  return status;
}

}  // namespace sortie::slurm
