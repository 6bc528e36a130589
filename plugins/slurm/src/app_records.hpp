// The slurm scheduler's durable state (ABI-8), so any later sortie process answers from the app
// id alone: <state_dir>/apps/<app_id> holds the job id and job directory; the job directory holds
// the plan (plan.json), the attempt ledger and, once seen, the job's terminal state (`final`),
// which outlives Slurm's own memory of the job when there is no accounting.
#ifndef SORTIE_SLURM_APP_RECORDS_HPP
#define SORTIE_SLURM_APP_RECORDS_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batch_plan.hpp"

namespace sortie::slurm {

struct AppRecord {
  std::string job_id;
  BatchPlan plan;
};

// A terminal state Slurm reported, kept by the scheduler.
struct FinalState {
  std::string state;      // Slurm's name, e.g. COMPLETED, FAILED, CANCELLED
  std::string exit_code;  // "code:signal" or ""
};

class AppRecords {
 public:
  explicit AppRecords(std::string state_dir);

  // Writes the job directory (plan.json, batch.sh, task files); returns the script's path.
  std::string write_job_dir(const BatchPlan& plan) const;
  void save(const BatchPlan& plan, const std::string& job_id) const;
  // Throws NOT_FOUND naming the app.
  AppRecord load(std::string_view app_id) const;
  std::optional<AppRecord> find(std::string_view app_id) const;
  std::vector<AppRecord> all() const;

  static std::optional<FinalState> final_state(const std::string& job_dir);
  static void keep_final_state(const std::string& job_dir, const FinalState& state);

 private:
  std::string dir_;
};

std::string read_text_file(const std::string& path);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_APP_RECORDS_HPP
