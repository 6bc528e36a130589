#include "slurm_scheduler.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sortie/app_list.hpp>
#include <sortie/app_status.hpp>
#include <sortie/dryrun.hpp>
#include <sortie/dryrun_input.hpp>
#include <sortie/plugin.hpp>
#include <sstream>

#include "app_status.hpp"
#include "cluster_facts.hpp"
#include "job_array.hpp"
#include "log_stream.hpp"
#include "run_options.hpp"
#include "slurm_command.hpp"

namespace sortie::slurm {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Runs sbatch --parsable, which prints "<job id>" or "<job id>;<cluster>"; returns the id.
std::string submitted_job_id(const std::vector<std::string>& sbatch_argv) {
  std::string job_id = trimmed(checked_output(sbatch_argv));
  job_id = job_id.substr(0, job_id.find(';'));
  if (job_id.empty() || job_id.find_first_not_of("0123456789") != std::string::npos) {
    throw Error::unavailable("slurm: sbatch printed '" + job_id + "' instead of a job id");
  }
  return job_id;
}

// Names each task of `array_job` after its app, with one scontrol reading all the renames. The
// apps are submitted already, so a failed rename only costs squeue's names: a warning, not an
// error.
void name_array_tasks(const std::vector<BatchPlan>& plans, const std::string& array_job) {
  if (plans.size() < 2) return;
  const std::string commands_path = plans.front().job_dir + "/array-names.scontrol";
  std::ofstream(commands_path, std::ios::binary | std::ios::trunc)
      << task_naming_commands(plans, array_job);
  const CommandResult renamed = run_command({plans.front().tools.scontrol}, commands_path);
  if (renamed.exit_code != 0) {
    Host::log(SORTIE_LOG_WARNING, "slurm: naming the tasks of job array " + array_job +
                                      " after their apps failed (scontrol exit " +
                                      std::to_string(renamed.exit_code) + "): " + renamed.err +
                                      "; squeue shows them under '" + plans.front().name + "'");
  }
}

}  // namespace

std::string task_program() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&task_program), &info) == 0 ||
      info.dli_fname == nullptr) {
    throw Error::internal("slurm scheduler: cannot locate its own library (dladdr failed)");
  }
  std::string directory = info.dli_fname;
  directory.erase(directory.rfind('/') == std::string::npos ? 0 : directory.rfind('/'));
  const std::string path =
      std::filesystem::path(directory + "/" SORTIE_SLURM_TASK_RELDIR "/sortie-slurm-task")
          .lexically_normal()
          .string();
  if (::access(path.c_str(), X_OK) != 0) {
    throw Error::failed_precondition("slurm scheduler: '" + path +
                                     "' is missing or not executable (" + std::strerror(errno) +
                                     "); reinstall sortie");
  }
  return path;
}

SlurmScheduler::SlurmScheduler(std::string_view config)
    : state_dir_(read_scheduler_config(config).state_dir),
      session_(read_scheduler_config(config).session),
      records_(state_dir_) {}

std::string SlurmScheduler::run_options() { return run_options_payload(); }

std::string SlurmScheduler::dryrun(std::string_view input_text) {
  const DryrunInput input = read_dryrun_input(input_text);
  const SlurmOptions options = parse_run_options(input.cfg_json, state_dir_);
  const BatchPlan plan =
      plan_batch(input, options, task_program(), {memory_is_consumable, usable_nodes});
  return write_dryrun({plan.app_id, write_plan(plan), dryrun_text(plan)});
}

std::vector<std::string> SlurmScheduler::submit(const BatchPlan& plan) {
  // The comment tag of every queued job (sortie's tag comes first in the comment) -> its id.
  std::map<std::string, std::string> queued;
  std::istringstream jobs(checked_output({plan.tools.squeue, "-h", "-a", "-o", "%A|%k"}));
  for (std::string line; std::getline(jobs, line);) {
    const size_t bar = line.find('|');
    if (bar == std::string::npos) continue;
    const std::string comment = line.substr(bar + 1);
    queued.emplace(comment.substr(0, comment.find(',')), line.substr(0, bar));
  }
  const auto queued_with_tag = [&](const std::string& tag) {
    const auto found = queued.find(tag);
    return found == queued.end() ? std::string() : found->second;
  };
  std::vector<std::string> job_ids = {queued_with_tag(plan.comment_tag)};
  for (const DependentJob& job : plan.dependents) {
    job_ids.push_back(queued_with_tag(job.comment_tag));
  }
  if (std::find(job_ids.begin(), job_ids.end(), "") == job_ids.end()) return job_ids;
  records_.write_job_dir(plan);
  std::vector<std::string> submitted;
  try {
    if (job_ids[0].empty()) submitted.push_back(job_ids[0] = submitted_job_id(plan.sbatch_argv));
    for (size_t i = 0; i < plan.dependents.size(); ++i) {
      if (!job_ids[i + 1].empty()) continue;
      job_ids[i + 1] = submitted_job_id(dependent_sbatch_argv(plan.dependents[i], job_ids[0]));
      submitted.push_back(job_ids[i + 1]);
    }
  } catch (...) {
    // Not half an app: the jobs this call submitted go too.
    for (const std::string& job : submitted) run_command({plan.tools.scancel, job});
    throw;
  }
  return job_ids;
}

std::string SlurmScheduler::schedule(std::string_view request) {
  const BatchPlan plan = read_plan(read_dryrun(request).request_json);
  if (records_.find(plan.app_id)) return plan.app_id;  // submitted already
  records_.save(plan, submit(plan));
  return plan.app_id;
}

std::string SlurmScheduler::submit_array(const std::vector<BatchPlan>& plans) {
  for (const BatchPlan& plan : plans) records_.write_job_dir(plan);
  const std::string script_path = plans.front().job_dir + "/array.sh";
  std::ofstream(script_path, std::ios::binary | std::ios::trunc) << array_script(plans);
  const std::string array_job =
      submitted_job_id({plans.front().tools.sbatch, "--parsable", script_path});
  for (size_t i = 0; i < plans.size(); ++i) {
    records_.save(plans[i], {array_job + "_" + std::to_string(i)});
  }
  name_array_tasks(plans, array_job);
  return array_job;
}

std::vector<std::string> SlurmScheduler::schedule_batch(
    const std::vector<std::string_view>& requests) {
  std::vector<BatchPlan> plans;
  std::map<std::string, std::vector<size_t>> arrays;  // array_key -> indices into plans
  for (const std::string_view request : requests) {
    plans.push_back(read_plan(read_dryrun(request).request_json));
    const std::string key = array_key(plans.back());
    if (!records_.find(plans.back().app_id) && !key.empty()) {
      arrays[key].push_back(plans.size() - 1);
    }
  }
  // All or nothing (ABI-14): a failure cancels the arrays and the apps already submitted.
  std::vector<std::string> submitted;
  std::vector<std::string> alone;
  try {
    for (const auto& [key, members] : arrays) {
      if (members.size() < 2) continue;  // submitted alone below
      const int64_t chunk = std::max<int64_t>(1, max_array_size(plans[members[0]].tools));
      for (size_t start = 0; start < members.size(); start += chunk) {
        std::vector<BatchPlan> array;
        for (size_t k = start; k < members.size() && k < start + chunk; ++k) {
          array.push_back(plans[members[k]]);
        }
        submitted.push_back(submit_array(array));
      }
    }
    for (const BatchPlan& plan : plans) {
      if (records_.find(plan.app_id)) continue;  // in an array above, or submitted before
      records_.save(plan, submit(plan));  // the rest, alone (a job group is a heterogeneous job)
      alone.push_back(plan.app_id);
    }
  } catch (...) {
    for (const std::string& job : submitted) run_command({plans.front().tools.scancel, job});
    for (const std::string& app_id : alone) {
      try {
        cancel(app_id);
      } catch (const Error&) {
        // The host asks about every app of a failed batch and cancels what still runs.
      }
    }
    throw;
  }
  std::vector<std::string> app_ids;
  for (const BatchPlan& plan : plans) app_ids.push_back(plan.app_id);
  return app_ids;
}

AppStatus SlurmScheduler::status_of(const AppRecord& record) {
  std::vector<const JobFacts*> facts(record.job_ids.size(), nullptr);
  if (!index_.has_ended(record.plan.app_id)) {
    // One squeue and at most one sacct for every app of the session not known to have ended
    // (this one among them).
    const auto& known =
        queue_.facts(record.plan.tools, index_.unfinished_jobs(record.plan.session));
    for (size_t job = 0; job < record.job_ids.size(); ++job) {
      const auto found = known.find(record.job_ids[job]);
      if (found != known.end()) facts[job] = &found->second;
    }
  }
  AppStatus status = build_status(record, facts, queue_.accounting_disabled());
  if (is_terminal(status.state)) index_.mark_ended(record.plan.app_id);
  return status;
}

std::string SlurmScheduler::describe(std::string_view app_id) {
  return write_status(status_of(index_.load(app_id)));
}

std::string SlurmScheduler::list(std::string_view filter_text) {
  const ListFilter filter = read_list_filter(filter_text);
  std::vector<ListedApp> apps;
  for (const AppRecord* record : index_.all()) {
    if (!filter.session.empty() && record->plan.session != filter.session) continue;
    apps.push_back({record->plan.app_id, record->plan.name, status_of(*record).state});
  }
  return write_app_list(apps);
}

void SlurmScheduler::cancel(std::string_view app_id) { cancel_batch({app_id}); }

void SlurmScheduler::cancel_batch(const std::vector<std::string_view>& app_ids) {
  // Every app is looked up first, so an unknown one (NOT_FOUND) cancels nothing.
  std::vector<AppRecord> records;
  for (const std::string_view app_id : app_ids) records.push_back(index_.load(app_id));
  // The jobs to cancel, by the scancel program their app names (the same for all, as a rule).
  std::map<std::string, std::vector<std::string>> jobs_by_scancel;
  std::vector<std::pair<const AppRecord*, size_t>> cancelled;
  for (const AppRecord& record : records) {
    for (size_t job = 0; job < record.job_ids.size(); ++job) {
      // Terminal states are final: a job that ended stays as it ended.
      if (AppRecords::final_state(record.plan, job)) continue;
      jobs_by_scancel[record.plan.tools.scancel].push_back(record.job_ids[job]);
      cancelled.emplace_back(&record, job);
    }
  }
  if (cancelled.empty()) return;
  // One scancel for them all: an array's tasks as one <array>_[ranges] argument.
  for (const auto& [program, job_ids] : jobs_by_scancel) {
    std::vector<std::string> scancel = {program};
    for (std::string& argument : scancel_arguments(job_ids)) scancel.push_back(std::move(argument));
    checked_output(scancel);
  }
  // A later status asks squeue afresh: the answer read before the cancel is stale.
  queue_.forget();
  // So that a job Slurm then forgets (a pending array task leaves squeue and sacct) is CANCELLED.
  for (const auto& [record, job] : cancelled) AppRecords::mark_cancelled(record->plan, job);
}

std::unique_ptr<LogStream> SlurmScheduler::log_open(std::string_view app_id,
                                                    std::string_view request) {
  const AppRecord record = index_.load(app_id);
  return std::make_unique<SlurmLogStream>(
      record.plan, request, [this, record] { return is_terminal(status_of(record).state); });
}

}  // namespace sortie::slurm
