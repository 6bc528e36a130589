#include "job_queue.hpp"

#include <chrono>
#include <sstream>

#include "slurm_command.hpp"

namespace sortie::slurm {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, separator)) fields.push_back(field);
  if (!line.empty() && line.back() == separator) fields.emplace_back();
  return fields;
}

// "123+0" (a heterogeneous job's first component) stands for the job "123".
std::string job_of(const std::string& id) {
  const size_t plus = id.find('+');
  if (plus == std::string::npos) return id;
  return id.substr(plus + 1) == "0" ? id.substr(0, plus) : "";
}

}  // namespace

const std::map<std::string, JobFacts>& JobQueue::facts(const SlurmTools& tools,
                                                       const std::vector<std::string>& job_ids,
                                                       int64_t max_age_ms) {
  bool unasked = false;
  for (const std::string& id : job_ids) unasked = unasked || asked_.count(id) == 0;
  if (refreshes_ == 0 || unasked || now_ms() - refreshed_at_ms_ > max_age_ms) {
    refresh(tools, job_ids);
  }
  return facts_;
}

void JobQueue::refresh(const SlurmTools& tools, const std::vector<std::string>& job_ids) {
  ++refreshes_;
  refreshed_at_ms_ = now_ms();
  facts_.clear();
  asked_ = std::set<std::string>(job_ids.begin(), job_ids.end());
  // Every state, so jobs that ended within MinJobAge are still answered here; -r: one line per
  // array task ("123_4"), pending ones too.
  std::istringstream queue(
      checked_output({tools.squeue, "-h", "-a", "-r", "-t", "all", "-o", "%i|%T|%r"}));
  for (std::string line; std::getline(queue, line);) {
    const std::vector<std::string> fields = split(line, '|');
    if (fields.size() < 3) continue;
    const std::string job = job_of(fields[0]);
    if (job.empty()) continue;
    facts_[job] = {fields[1], fields[2], "", false};
  }
  std::string forgotten;
  for (const std::string& id : job_ids) {
    if (facts_.count(id) == 0) forgotten += (forgotten.empty() ? "" : ",") + id;
  }
  if (forgotten.empty()) return;
  // -D: every requeued run too, the last line of a job being its latest.
  const CommandResult accounting = run_command(
      {tools.sacct, "-n", "-P", "-X", "-D", "-j", forgotten, "-o", "JobID,State,ExitCode,Reason"});
  accounting_disabled_ = accounting.exit_code != 0;
  if (accounting_disabled_) return;
  std::istringstream lines(accounting.out);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> fields = split(line, '|');
    if (fields.size() < 4) continue;
    const std::string job = job_of(fields[0]);
    if (job.empty()) continue;
    // "CANCELLED by 0": the first word is the state.
    facts_[job] = {fields[1].substr(0, fields[1].find(' ')), fields[3], fields[2], true};
  }
}

}  // namespace sortie::slurm
