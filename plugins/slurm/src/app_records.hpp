// The slurm scheduler's durable state (ABI-8), so any later sortie process answers from the app
// id alone: <state_dir>/apps/<app_id> holds the job ids (one, or one per role with
// role_jobs=separate) and the job directory; the job directory holds the plan (plan.json), each
// job's attempt ledger and, once seen, each job's terminal state (`final`), which outlives Slurm's
// own memory of the job when there is no accounting; `cancelled` marks a job this plugin's scancel
// accepted and `missing` when neither squeue nor sacct first knew a job (app_status.hpp).
#ifndef SORTIE_SLURM_APP_RECORDS_HPP
#define SORTIE_SLURM_APP_RECORDS_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batch_plan.hpp"

namespace sortie::slurm {

struct AppRecord {
  std::vector<std::string> job_ids;  // job I runs what BatchPlan::job_of_role says
  BatchPlan plan;
};

// A terminal state Slurm reported, kept by the scheduler.
struct FinalState {
  std::string state;      // Slurm's name, e.g. COMPLETED, FAILED, CANCELLED
  std::string exit_code;  // "code:signal" or ""
  std::string words;      // why, when the plugin decided the state itself; else ""
};

class AppRecords {
 public:
  explicit AppRecords(std::string state_dir);

  // Writes the job directory (plan.json, batch.sh and the dependent jobs' scripts, task files);
  // returns the first script's path.
  std::string write_job_dir(const BatchPlan& plan) const;
  void save(const BatchPlan& plan, const std::vector<std::string>& job_ids) const;
  std::optional<AppRecord> find(std::string_view app_id) const;
  std::vector<std::string> app_ids() const;  // every app recorded, by listing the directory

  // Of job `job` of the plan.
  static std::optional<FinalState> final_state(const BatchPlan& plan, size_t job);
  static void keep_final_state(const BatchPlan& plan, size_t job, const FinalState& state);
  // scancel accepted cancelling job `job`.
  static void mark_cancelled(const BatchPlan& plan, size_t job);
  static bool was_cancelled(const BatchPlan& plan, size_t job);
  // The time (seconds since the epoch) job `job` was first found unknown to squeue and sacct:
  // `now` on the first call, kept until forget_missing.
  static int64_t missing_since(const BatchPlan& plan, size_t job, int64_t now);
  static void forget_missing(const BatchPlan& plan, size_t job);

 private:
  std::string dir_;
};

std::string read_text_file(const std::string& path);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_APP_RECORDS_HPP
