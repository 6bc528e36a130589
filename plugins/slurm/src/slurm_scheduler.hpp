// The `slurm` scheduler: runs an app as a Slurm batch job (or, with role_jobs=separate, a job per
// role tied by a dependency) through the command-line tools
// (sbatch, squeue, sacct, scancel, scontrol), each an exec'd argv with explicit output fields.
// docs/slurm-scheduler.md says what it maps to what.
#ifndef SORTIE_SLURM_SLURM_SCHEDULER_HPP
#define SORTIE_SLURM_SLURM_SCHEDULER_HPP

#include <memory>
#include <sortie/app_status.hpp>
#include <sortie/plugin.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "app_index.hpp"
#include "app_records.hpp"
#include "job_queue.hpp"

namespace sortie::slurm {

class SlurmScheduler : public Scheduler {
 public:
  explicit SlurmScheduler(std::string_view config);  // "sortie.scheduler_config/1"

  std::string run_options() override;
  std::string dryrun(std::string_view input) override;
  std::string schedule(std::string_view request) override;
  // Apps with the same #SBATCH lines go in one job array (split at MaxArraySize); others alone.
  std::vector<std::string> schedule_batch(const std::vector<std::string_view>& requests) override;
  std::string describe(std::string_view app_id) override;
  std::string list(std::string_view filter) override;
  void cancel(std::string_view app_id) override;
  // One scancel for every job of the apps (an array's tasks as one task range, ABI-15).
  void cancel_batch(const std::vector<std::string_view>& app_ids) override;
  std::unique_ptr<LogStream> log_open(std::string_view app_id, std::string_view request) override;

 private:
  AppStatus status_of(const AppRecord& record);
  // Submits the plan's jobs that are not in the queue yet (a retried schedule finds them by their
  // comment tags); returns every job id, first job first.
  std::vector<std::string> submit(const BatchPlan& plan);
  // Submits `plans` as one array; records app I as job <array>_<I>.
  std::string submit_array(const std::vector<BatchPlan>& plans);

  std::string state_dir_;
  std::string session_;
  AppRecords records_;
  AppIndex index_{records_};
  JobQueue queue_;
};

// The sortie-slurm-task program installed next to this plugin; FAILED_PRECONDITION if missing.
std::string task_program();

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_SLURM_SCHEDULER_HPP
