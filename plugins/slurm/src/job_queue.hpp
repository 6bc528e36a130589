// What Slurm says about sortie's jobs, asked in batches: one `squeue` (every job it still
// knows, with explicit fields) and at most one `sacct` (only the jobs squeue has forgotten) per
// refresh, however many apps are described, so watching 50 apps costs two calls per poll.
#ifndef SORTIE_SLURM_JOB_QUEUE_HPP
#define SORTIE_SLURM_JOB_QUEUE_HPP

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "run_options.hpp"

namespace sortie::slurm {

struct JobFacts {
  std::string state;      // Slurm's name: PENDING, RUNNING, COMPLETED, FAILED, TIMEOUT, ...
  std::string reason;     // why it is pending, e.g. Resources, Dependency, JobHeldUser
  std::string exit_code;  // sacct's "code:signal", when known
  bool from_accounting = false;
};

class JobQueue {
 public:
  // Facts about every job in `job_ids` (ids as sbatch printed them), asking Slurm only when the
  // last answer is older than max_age_ms or was not asked for one of them. A job neither tool knows
  // is absent; accounting_disabled() then says whether sacct could have known it.
  const std::map<std::string, JobFacts>& facts(const SlurmTools& tools,
                                               const std::vector<std::string>& job_ids,
                                               int64_t max_age_ms = 1000);
  // The next facts() asks Slurm again (a job this process just cancelled changed state).
  void forget() { asked_.clear(); }
  bool accounting_disabled() const { return accounting_disabled_; }
  int64_t refreshes() const { return refreshes_; }

 private:
  void refresh(const SlurmTools& tools, const std::vector<std::string>& job_ids);
  std::map<std::string, JobFacts> facts_;
  std::set<std::string> asked_;
  int64_t refreshed_at_ms_ = 0;
  int64_t refreshes_ = 0;
  bool accounting_disabled_ = false;
};

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_JOB_QUEUE_HPP
