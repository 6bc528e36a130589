// An app's sortie.status/1 from what Slurm says about its job (job_queue.hpp) and what its
// replicas left in the job directory (replica_files.hpp, the attempt ledger): the job's state,
// why it is pending in words, per replica state, host and exit code of its latest attempt, and
// attempts as restarts.
#ifndef SORTIE_SLURM_APP_STATUS_HPP
#define SORTIE_SLURM_APP_STATUS_HPP

#include <cstdint>
#include <optional>
#include <sortie/app_status.hpp>
#include <string>
#include <string_view>

#include "app_records.hpp"
#include "job_queue.hpp"

namespace sortie::slurm {

// Slurm's job state name as an AppState.
AppState app_state_of(std::string_view slurm_state);

// The attempts the batch script started (lines "start N" of <job_dir>/attempts).
int64_t attempts_started(const std::string& job_dir);

// `facts` is null when Slurm no longer knows the job; `accounting_disabled` says why.
AppStatus build_status(const AppRecord& record, const JobFacts* facts, bool accounting_disabled);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_APP_STATUS_HPP
