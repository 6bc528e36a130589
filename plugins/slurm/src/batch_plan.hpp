// What `sortie run` on slurm submits, computed once by dryrun and carried unchanged to schedule
// (so `--dryrun` shows byte for byte what is submitted): the batch script, the sbatch argv and
// the per-replica task files (argv and environment, NUL-separated) that sortie-slurm-task reads.
//
// Mapping: one role with N replicas is one job with N tasks (srun task = replica, packed on as
// few nodes as fit); several roles are one heterogeneous job, one component per role, which
// needs a node per role: fewer usable nodes is a dryrun error naming why. With the run option
// role_jobs=separate, each role is a job of its own instead, the later ones submitted with
// --dependency=after:<first role's job> so that all start together.
#ifndef SORTIE_SLURM_BATCH_PLAN_HPP
#define SORTIE_SLURM_BATCH_PLAN_HPP

#include <cstdint>
#include <sortie/dryrun_input.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "run_options.hpp"

namespace sortie::slurm {

struct RolePlan {
  std::string name;
  int64_t replicas = 1;
};

// A later role's own job (role_jobs=separate); schedule adds --dependency=after:<first job> to
// its sbatch argv once the first job has an id.
struct DependentJob {
  std::string role;
  std::string comment_tag;
  std::string script;
  std::vector<std::string> sbatch_argv;
};

struct BatchPlan {
  std::string app_id;
  std::string name;
  std::string session;
  std::string job_dir;
  std::string output_dir;   // the app's (AppDef output_dir): "" or a path every node shares
  std::string comment_tag;  // in --comment: how a retried schedule finds its job
  std::string script;
  std::vector<std::string> sbatch_argv;
  std::vector<std::pair<std::string, std::string>> files;  // path in job_dir -> content
  std::vector<RolePlan> roles;
  SlurmTools tools;
  int64_t array_parallelism = 0;  // run option; used when submitted in a job array
  bool separate_jobs = false;     // run option role_jobs=separate: the first job runs roles[0]
  std::vector<DependentJob> dependents;

  // The jobs: 1 + dependents, in role order when separate.
  size_t job_count() const { return 1 + dependents.size(); }
  // Which job runs roles[role].
  size_t job_of_role(size_t role) const { return separate_jobs ? role : 0; }
  // The name of a file a job keeps in the job directory (`attempts`, its ledger; `final`):
  // `name`, or `name`-<role> for the job of each role when separate.
  std::string job_file_name(std::string_view name, size_t job) const;
};

// What the plan needs to know about the cluster; asked lazily (cluster_facts.hpp).
struct ClusterQuestions {
  bool (*memory_is_consumable)(const SlurmTools&);
  int64_t (*usable_nodes)(const SlurmTools&, const std::string& partition);
};

BatchPlan plan_batch(const DryrunInput& input, const SlurmOptions& options,
                     const std::string& task_program, const ClusterQuestions& cluster);

// The tag a job of `app_id` carries in its comment.
std::string comment_tag(std::string_view app_id);

// The dryrun's text: the script, or with separate jobs each script after a line saying how it is
// submitted.
std::string dryrun_text(const BatchPlan& plan);

// The argv that submits dependent job `dependent` once the first job is `first_job`.
std::vector<std::string> dependent_sbatch_argv(const DependentJob& dependent,
                                               std::string_view first_job);

std::string write_plan(const BatchPlan& plan);  // JSON text, the dryrun's request
BatchPlan read_plan(std::string_view json);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_BATCH_PLAN_HPP
