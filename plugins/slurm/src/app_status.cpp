#include "app_status.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <limits>
#include <sstream>
#include <utility>

#include "pending_reason.hpp"
#include "replica_files.hpp"

namespace sortie::slurm {

AppState app_state_of(std::string_view state) {
  // Slurm's job state codes (squeue(1), "JOB STATE CODES"); one it may add later is UNKNOWN.
  static constexpr std::pair<std::string_view, AppState> kStates[] = {
      {"PENDING", AppState::kPending},      {"REQUEUED", AppState::kPending},
      {"REQUEUE_HOLD", AppState::kPending}, {"REQUEUE_FED", AppState::kPending},
      {"CONFIGURING", AppState::kPending},  {"RESV_DEL_HOLD", AppState::kPending},
      {"SUSPENDED", AppState::kPending},    {"STOPPED", AppState::kPending},
      {"RUNNING", AppState::kRunning},      {"COMPLETING", AppState::kRunning},
      {"STAGE_OUT", AppState::kRunning},    {"SIGNALING", AppState::kRunning},
      {"RESIZING", AppState::kRunning},     {"COMPLETED", AppState::kSucceeded},
      {"CANCELLED", AppState::kCancelled},  {"FAILED", AppState::kFailed},
      {"TIMEOUT", AppState::kFailed},       {"NODE_FAIL", AppState::kFailed},
      {"OUT_OF_MEMORY", AppState::kFailed}, {"BOOT_FAIL", AppState::kFailed},
      {"DEADLINE", AppState::kFailed},      {"PREEMPTED", AppState::kFailed},
      {"SPECIAL_EXIT", AppState::kFailed},  {"REVOKED", AppState::kFailed},
  };
  return state_in(kStates, state);
}

Ledger read_ledger(const std::string& path) {
  std::istringstream lines(read_text_file(path));
  Ledger ledger;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("start ", 0) == 0) {
      ++ledger.started;
      continue;
    }
    const bool timeout = line.ends_with(" timeout");
    ledger.timeouts += timeout;
    ledger.failures += line.find(" failed ") != std::string::npos;
    ledger.preemptions += line.ends_with(" preempted");
    ledger.last_ended_by_timeout = timeout;
  }
  return ledger;
}

int64_t seconds_since_epoch() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {

// One job of the app as Slurm last told it; its terminal state is kept in the job directory.
struct JobView {
  std::string id;
  std::string slurm_state;  // "" when Slurm has forgotten the job
  std::string exit_code;    // "code:signal" when known
  std::string words;        // why, when the plugin decided the terminal state itself
  const JobFacts* facts = nullptr;
  AppState state = AppState::kUnknown;
  Ledger ledger;
};

// What to conclude of a job neither squeue nor sacct knows: CANCELLED when this plugin cancelled
// it (Slurm drops a pending array task it cancels from both), FAILED once it has been unknown for
// the grace with accounting working; nothing yet otherwise.
std::optional<FinalState> forgotten_job_end(const BatchPlan& plan, size_t job,
                                            const std::string& id, bool accounting_disabled,
                                            int64_t now_s) {
  if (AppRecords::was_cancelled(plan, job)) {
    return FinalState{"CANCELLED", "",
                      "job " + id + " was cancelled by sortie; Slurm has forgotten it since"};
  }
  if (accounting_disabled) return std::nullopt;
  const int64_t since = AppRecords::missing_since(plan, job, now_s);
  if (now_s - since < kForgottenGraceS) return std::nullopt;
  return FinalState{"FAILED", "",
                    "Slurm has forgotten job " + id +
                        ": neither squeue nor sacct has known it for " +
                        std::to_string(now_s - since) + " s, and sortie did not cancel it"};
}

JobView view_job(const BatchPlan& plan, size_t job, const std::string& id, const JobFacts* facts,
                 bool accounting_disabled, int64_t now_s) {
  JobView view{id,
               "",
               "",
               "",
               facts,
               AppState::kUnknown,
               read_ledger(plan.job_dir + "/" + plan.job_file_name("attempts", job))};
  std::optional<FinalState> kept = AppRecords::final_state(plan, job);
  if (!kept && facts != nullptr) {
    AppRecords::forget_missing(plan, job);
    view.slurm_state = facts->state;
    view.exit_code = facts->exit_code;
    if (is_terminal(app_state_of(view.slurm_state))) {
      AppRecords::keep_final_state(plan, job, {view.slurm_state, facts->exit_code, ""});
    }
  } else if (!kept) {
    kept = forgotten_job_end(plan, job, id, accounting_disabled, now_s);
    if (kept) AppRecords::keep_final_state(plan, job, *kept);
  }
  if (kept) {
    view.slurm_state = kept->state;
    view.exit_code = kept->exit_code;
    view.words = kept->words;
  }
  if (!view.slurm_state.empty()) view.state = app_state_of(view.slurm_state);
  return view;
}

// Why a terminal job ended, when its state alone does not say it.
std::string end_words(const JobView& job) {
  if (!job.words.empty()) return job.words;
  if (job.slurm_state == "TIMEOUT") return "job " + job.id + " reached its time limit";
  if (job.state == AppState::kFailed && job.ledger.last_ended_by_timeout) {
    return "job " + job.id + " reached its time limit " + std::to_string(job.ledger.timeouts) +
           " time(s), more than the run option max_timeouts allows";
  }
  if (job.slurm_state == "PREEMPTED" || job.slurm_state == "NODE_FAIL") {
    return "job " + job.id + " ended " + job.slurm_state;
  }
  return "";
}

// The last line a job's batch script printed (its --output, slurm-<job>.out; an array task's
// numeric id is its own, so the newest such file there), where it says why it gave up.
std::string last_script_line(const std::string& job_dir, const std::string& job_id) {
  std::string path = job_dir + "/slurm-" + job_id + ".out";
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    std::filesystem::file_time_type newest;
    path.clear();
    for (const auto& entry : std::filesystem::directory_iterator(job_dir, error)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with("slurm-") || !name.ends_with(".out")) continue;
      const auto written = entry.last_write_time(error);
      if (path.empty() || written > newest) {
        path = entry.path().string();
        newest = written;
      }
    }
  }
  std::istringstream lines(read_text_file(path));
  std::string last;
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  constexpr size_t kMost = 300;
  return last.size() > kMost ? last.substr(0, kMost) + "..." : last;
}

// Why a failed app failed when its jobs' states do not say: the replica that failed first in the
// latest attempt, else the failed job and the last line its batch script printed.
std::string failure_words(const AppStatus& status, const std::vector<JobView>& jobs,
                          const std::string& job_dir) {
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  const ReplicaStatus* first = nullptr;
  std::string first_role;
  for (const RoleStatus& role : status.roles) {
    for (const ReplicaStatus& replica : role.replicas) {
      if (replica.state != AppState::kFailed || replica.exit_code.value_or(0) == 0) continue;
      if (first == nullptr ||
          replica.finished_at.value_or(kNever) < first->finished_at.value_or(kNever)) {
        first = &replica;
        first_role = role.role;
      }
    }
  }
  if (first != nullptr) {
    return "replica " + first_role + "/" + std::to_string(first->id) +
           (first->hostname.empty() ? "" : " (on " + first->hostname + ")") +
           " failed: " + first->msg;
  }
  for (const JobView& job : jobs) {
    if (job.state != AppState::kFailed) continue;
    const std::string line = last_script_line(job_dir, job.id);
    return "job " + job.id + " ended " + job.slurm_state +
           (job.exit_code.empty() ? "" : " (exit code " + job.exit_code + ")") +
           (line.empty() ? "; no replica failed, and its batch script printed nothing"
                         : "; its batch script's last line: " + line);
  }
  return "";
}

// The app's state from its jobs': running or pending while any is; then failed, cancelled or
// succeeded, in that order.
AppState app_state_of_jobs(const std::vector<JobView>& jobs) {
  bool pending = false;
  bool unknown = false;
  for (const JobView& job : jobs) {
    if (job.state == AppState::kRunning) return AppState::kRunning;
    pending = pending || job.state == AppState::kPending;
    unknown = unknown || job.state == AppState::kUnknown;
  }
  if (pending) return AppState::kPending;
  if (unknown) return AppState::kUnknown;
  for (const AppState state : {AppState::kFailed, AppState::kCancelled}) {
    for (const JobView& job : jobs) {
      if (job.state == state) return state;
    }
  }
  return AppState::kSucceeded;
}

std::string joined(const std::vector<JobView>& jobs, std::string JobView::*field) {
  std::string text;
  for (const JobView& job : jobs) text += (text.empty() ? "" : " ") + job.*field;
  return text;
}

}  // namespace

AppStatus build_status(const AppRecord& record, const std::vector<const JobFacts*>& facts,
                       bool accounting_disabled, int64_t now_s) {
  const BatchPlan& plan = record.plan;
  std::vector<JobView> jobs;
  for (size_t job = 0; job < record.job_ids.size(); ++job) {
    jobs.push_back(
        view_job(plan, job, record.job_ids[job], facts.at(job), accounting_disabled, now_s));
  }
  AppStatus status;
  status.app_id = plan.app_id;
  status.state = app_state_of_jobs(jobs);
  for (const JobView& job : jobs) {
    if (!status.msg.empty()) break;
    if (job.slurm_state.empty()) {
      status.msg = "Slurm has forgotten job " + job.id +
                   (accounting_disabled ? " (it left squeue and accounting is disabled, so sacct "
                                          "cannot say how it ended)"
                                        : " (neither squeue nor sacct knows it)");
    } else if (status.state == AppState::kPending && job.state == AppState::kPending &&
               job.facts != nullptr) {
      status.msg = explain_pending(job.facts->reason, job.id);
    } else if (is_terminal(status.state)) {
      status.msg = end_words(job);
    }
  }
  int64_t most_attempts = 0;
  Ledger spent;
  for (const JobView& job : jobs) {
    most_attempts = std::max(most_attempts, job.ledger.started);
    spent.failures += job.ledger.failures;
    spent.preemptions += job.ledger.preemptions;
    spent.timeouts += job.ledger.timeouts;
  }
  status.num_restarts = most_attempts > 0 ? most_attempts - 1 : 0;
  for (size_t role_index = 0; role_index < plan.roles.size(); ++role_index) {
    const RolePlan& role = plan.roles[role_index];
    const JobView& job = jobs.at(plan.job_of_role(role_index));
    const int64_t attempt = job.ledger.started > 0 ? job.ledger.started - 1 : 0;
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
        if (files.signal != 0) {
          replica.msg = "killed by signal " + std::to_string(files.signal);
        } else if (*files.exit_code != 0) {
          replica.msg = "exited with code " + std::to_string(*files.exit_code);
        }
        if (job.state == AppState::kCancelled && *files.exit_code != 0) {
          replica.state = AppState::kCancelled;
        }
      } else if (files.started_at && !is_terminal(job.state)) {
        replica.state = AppState::kRunning;
      } else if (is_terminal(job.state) || job.state == AppState::kPending) {
        replica.state = job.state;
      } else {
        replica.state = AppState::kPending;
      }
      role_status.replicas.push_back(std::move(replica));
    }
    status.roles.push_back(std::move(role_status));
  }
  if (status.state == AppState::kFailed && status.msg.empty()) {
    status.msg = failure_words(status, jobs, plan.job_dir);
  }
  status.metadata.emplace_back("slurm.job_id", json_string(jobs.front().id));
  if (jobs.size() > 1) {
    status.metadata.emplace_back("slurm.job_ids", json_string(joined(jobs, &JobView::id)));
  }
  status.metadata.emplace_back("slurm.state", json_string(joined(jobs, &JobView::slurm_state)));
  for (const JobView& job : jobs) {
    if (job.facts != nullptr && !job.facts->reason.empty() && job.facts->reason != "None") {
      status.metadata.emplace_back("slurm.reason", json_string(job.facts->reason));
      break;
    }
  }
  status.metadata.emplace_back("slurm.attempts", std::to_string(most_attempts));
  status.metadata.emplace_back("slurm.failures", std::to_string(spent.failures));
  status.metadata.emplace_back("slurm.preemptions", std::to_string(spent.preemptions));
  status.metadata.emplace_back("slurm.timeouts", std::to_string(spent.timeouts));
  status.metadata.emplace_back("slurm.job_dir", json_string(plan.job_dir));
  return status;
}

}  // namespace sortie::slurm
