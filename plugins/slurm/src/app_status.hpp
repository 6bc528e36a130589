// An app's sortie.status/1 from what Slurm says about its jobs (job_queue.hpp) and what its
// replicas left in the job directory (replica_files.hpp, the attempt ledgers): the jobs' state,
// why one is pending in words, per replica state, host and exit code of its latest attempt, and
// attempts as restarts. An app of several jobs (role_jobs=separate) is RUNNING while any job
// runs and, once all ended, FAILED if any failed.
#ifndef SORTIE_SLURM_APP_STATUS_HPP
#define SORTIE_SLURM_APP_STATUS_HPP

#include <cstdint>
#include <optional>
#include <sortie/app_status.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "app_records.hpp"
#include "job_queue.hpp"

namespace sortie::slurm {

// Slurm's job state name as an AppState.
AppState app_state_of(std::string_view slurm_state);

// What a job's batch script wrote in its ledger: a line "start N" per attempt, "end N <how>"
// when it ended (succeeded, failed <code>, preempted, timeout).
struct Ledger {
  int64_t started = 0;
  int64_t failures = 0;
  int64_t preemptions = 0;
  int64_t timeouts = 0;
  bool last_ended_by_timeout = false;
};
Ledger read_ledger(const std::string& path);

// How long a job sbatch accepted may be unknown to both squeue and a working sacct before it reads
// FAILED. slurmctld knows a job once sbatch returns and squeue answers for it until MinJobAge after
// it ends; slurmdbd is sent the job at submission, so sacct knows it within seconds unless slurmdbd
// is unreachable (then sacct fails and the job stays UNKNOWN). The grace covers that lag only.
constexpr int64_t kForgottenGraceS = 15;

int64_t seconds_since_epoch();

// facts[I] is what Slurm says of record.job_ids[I], null when it no longer knows the job;
// `accounting_disabled` says why. A forgotten job this plugin cancelled is CANCELLED; one forgotten
// without a cancel, with accounting, is FAILED once kForgottenGraceS passed since first seen so.
AppStatus build_status(const AppRecord& record, const std::vector<const JobFacts*>& facts,
                       bool accounting_disabled, int64_t now_s = seconds_since_epoch());

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_APP_STATUS_HPP
