// Why a job is PENDING, in words, with what to do about it: Slurm's reason codes (squeue %r,
// sacct Reason) as a user reads them.
#ifndef SORTIE_SLURM_PENDING_REASON_HPP
#define SORTIE_SLURM_PENDING_REASON_HPP

#include <string>
#include <string_view>

namespace sortie::slurm {

// E.g. "JobHeldUser" -> "held by its user (JobHeldUser); release it with `scontrol release 42`".
std::string explain_pending(std::string_view reason, std::string_view job_id);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_PENDING_REASON_HPP
