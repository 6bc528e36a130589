// Apps submitted together as one Slurm job array (ABI-14 schedule_batch, e.g. a sweep's work
// units): task I of the array runs app I's own batch script from its own job directory, so each
// app keeps its task files (args and env byte-exact), logs, ledger and app id
// (<array job>_<I>, which scancel, squeue and sacct address alone). Apps can share an array only
// when their #SBATCH lines agree but for name, comment and output; a heterogeneous job, or an app
// of several jobs (role_jobs=separate), cannot be an array task.
#ifndef SORTIE_SLURM_JOB_ARRAY_HPP
#define SORTIE_SLURM_JOB_ARRAY_HPP

#include <string>
#include <vector>

#include "batch_plan.hpp"

namespace sortie::slurm {

// What apps sharing an array must have in common; "" when `plan` cannot be an array task.
std::string array_key(const BatchPlan& plan);

// The script of one array over `plans` (same array_key): --array=0-N[%P].
std::string array_script(const std::vector<BatchPlan>& plans);

// The scontrol commands (one a line, for scontrol's stdin) that name each task of `array_job`
// after its own app, so that squeue tells the units of a sweep apart; task 0 already carries
// plans[0]'s name from the script.
std::string task_naming_commands(const std::vector<BatchPlan>& plans, const std::string& array_job);

// `job_ids` as scancel arguments: the tasks of one array as one `<array job>_[I,J-K]` (so
// cancelling a whole sweep is one short argument), other ids as they are; arrays first, by first
// appearance.
std::vector<std::string> scancel_arguments(const std::vector<std::string>& job_ids);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_JOB_ARRAY_HPP
