// File: sortie/xm/jobs.hpp
//
// Job trees of the launch API (sortie/xm.hpp) as the launcher walks them: a JobGroup flattened
// to named jobs, XManager's add(job, args=...) overrides, and the names jobs run under.
#ifndef SORTIE_XM_JOBS_HPP
#define SORTIE_XM_JOBS_HPP

#include <cstdint>
#include <sortie/xm.hpp>
#include <string>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm {

struct FlatJob {
  std::string name;  // the job's own name, else its group keys joined by '_'
  const Job* job;
};

// Every job of the group, depth first in member order. Two jobs with one name throw Error
// naming the name and both key paths.
std::vector<FlatJob> flatten(const JobGroup& group);

// XManager's _apply_args for one job: args merged (keywords override in place, positionals
// append), env vars updated. Throws Error for an invalid env var name.
void apply_args(Job& job, const JobArgs& overrides);

// "{experiment}_{work unit}_{job}", XManager's get_full_job_name.
std::string full_job_name(int64_t experiment_id, int work_unit_id, const std::string& job);

}  // namespace sortie::xm
#pragma GCC visibility pop

#endif  // SORTIE_XM_JOBS_HPP
