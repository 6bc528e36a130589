// File: core/xm/job_names.cpp
//
// Job groups and job names, after XManager's job_operators.py: a job without a name takes its
// group keys joined by '_' (populate_job_names), and names are unique within a work unit.
#include <map>
#include <sortie/model/error.hpp>
#include <sortie/xm/jobs.hpp>

namespace sortie::xm {
namespace {

void check_new_member(const JobGroup& group, const std::string& name) {
  if (name.empty()) throw Error::invalid_argument("JobGroup::add: a member needs a non-empty name");
  for (const JobGroup::Member& member : group.members) {
    if (member.name == name) {
      throw Error::invalid_argument("JobGroup::add: the group already has a member named '" + name +
                                    "'; give each member its own name");
    }
  }
}

}  // namespace

JobGroup& JobGroup::add(std::string name, Job job) {
  check_new_member(*this, name);
  members.push_back(Member{std::move(name), std::make_shared<Job>(std::move(job)), nullptr});
  return *this;
}

JobGroup& JobGroup::add(std::string name, JobGroup group) {
  check_new_member(*this, name);
  members.push_back(Member{std::move(name), nullptr, std::make_shared<JobGroup>(std::move(group))});
  return *this;
}

namespace {

// name -> the key path that produced it, for the duplicate message.
using SeenNames = std::map<std::string, std::string>;

void collect(const JobGroup& group, const std::string& prefix, std::vector<FlatJob>& jobs,
             SeenNames& seen) {
  for (const JobGroup::Member& member : group.members) {
    const std::string path = prefix.empty() ? member.name : prefix + "_" + member.name;
    if (member.group) {
      collect(*member.group, path, jobs, seen);
      continue;
    }
    const std::string name = member.job->name.empty() ? path : member.job->name;
    const auto [previous, inserted] = seen.emplace(name, path);
    if (!inserted) {
      throw Error::invalid_argument(
          "job group: the jobs at '" + previous->second + "' and '" + path + "' are both named '" +
          name + "'; job names must be unique in a work unit, " + "rename one of them");
    }
    jobs.push_back(FlatJob{name, member.job.get()});
  }
}

}  // namespace

std::vector<FlatJob> flatten(const JobGroup& group) {
  std::vector<FlatJob> jobs;
  SeenNames seen;
  collect(group, "", jobs, seen);
  return jobs;
}

void apply_args(Job& job, const JobArgs& overrides) {
  validate_env_vars(overrides.env_vars, "job '" + job.name + "': env_vars");
  job.args.merge(overrides.args);
  for (const auto& [name, value] : overrides.env_vars) job.env_vars[name] = value;
}

std::string full_job_name(int64_t experiment_id, int work_unit_id, const std::string& job) {
  return std::to_string(experiment_id) + "_" + std::to_string(work_unit_id) + "_" + job;
}

}  // namespace sortie::xm
