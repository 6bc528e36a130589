// What `sortie run` on slurm submits, computed once by dryrun and carried unchanged to schedule
// (so `--dryrun` shows byte for byte what is submitted): the batch script, the sbatch argv and
// the per-replica task files (argv and environment, NUL-separated) that sortie-slurm-task reads.
//
// Mapping: one role with N replicas is one job with N tasks (srun task = replica, packed on as
// few nodes as fit); several roles are one heterogeneous job, one component per role, which
// needs a node per role: fewer usable nodes is a dryrun error naming why.
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

struct BatchPlan {
  std::string app_id;
  std::string name;
  std::string session;
  std::string job_dir;
  std::string comment_tag;  // in --comment: how a retried schedule finds its job
  std::string script;
  std::vector<std::string> sbatch_argv;
  std::vector<std::pair<std::string, std::string>> files;  // path in job_dir -> content
  std::vector<RolePlan> roles;
  SlurmTools tools;
  int64_t array_parallelism = 0;  // run option; used when submitted in a job array
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

std::string write_plan(const BatchPlan& plan);  // JSON text, the dryrun's request
BatchPlan read_plan(std::string_view json);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_BATCH_PLAN_HPP
