#include "pending_reason.hpp"

namespace sortie::slurm {
namespace {

struct Explanation {
  std::string_view reason;  // a code, or a prefix of a family of codes when it ends with '*'
  std::string_view words;
  std::string_view hint;  // "{id}" stands for the job id
};

constexpr Explanation kExplanations[] = {
    {"Resources", "waiting for resources: the nodes it needs are busy",
     "it starts when running jobs free them (`squeue` shows them)"},
    {"Priority", "waiting for jobs of higher priority to start first",
     "nothing to do; `sprio -j {id}` shows its priority"},
    {"Dependency", "waiting for the jobs it depends on", "`scontrol show job {id}` lists them"},
    {"DependencyNeverSatisfied", "its dependency can never be satisfied",
     "it will never start: cancel it with `sortie cancel`"},
    {"JobHeldUser", "held by its user", "release it with `scontrol release {id}`"},
    {"JobHeldAdmin", "held by an administrator", "ask an administrator to release job {id}"},
    {"BeginTime", "its start time has not come yet (requeued jobs wait a little)",
     "it starts by itself; `scontrol show job {id}` shows StartTime"},
    {"ReqNodeNotAvail", "a node it needs is not available (down, drained or reserved)",
     "`sinfo -R` says why; choose another partition or constraint"},
    {"PartitionDown", "its partition is down", "`sinfo` shows the partition's state"},
    {"PartitionInactive", "its partition is inactive", "`sinfo` shows the partition's state"},
    {"PartitionTimeLimit", "its time limit exceeds the partition's", "lower the run option 'time'"},
    {"PartitionNodeLimit", "it asks for more nodes than the partition allows per job",
     "ask for fewer replicas or another partition"},
    {"BadConstraints", "its constraints cannot be met by any node",
     "fix the run option 'constraint' or the role's resource"},
    {"QOS*", "a limit of its quality of service (QOS) holds it back",
     "wait, or choose another run option 'qos'"},
    {"Assoc*", "a limit of its account holds it back", "wait, or use another run option 'account'"},
    {"Reservation", "waiting for its reservation to start", "it starts with the reservation"},
    {"Licenses", "waiting for licenses", "it starts when licenses are free"},
    {"None", "submitted; the scheduler has not looked at it yet", "it is considered shortly"},
};

bool matches(std::string_view pattern, std::string_view reason) {
  if (!pattern.empty() && pattern.back() == '*') {
    return reason.substr(0, pattern.size() - 1) == pattern.substr(0, pattern.size() - 1);
  }
  return reason == pattern;
}

}  // namespace

std::string explain_pending(std::string_view reason, std::string_view job_id) {
  for (const Explanation& explanation : kExplanations) {
    if (!matches(explanation.reason, reason)) continue;
    std::string hint(explanation.hint);
    if (const size_t at = hint.find("{id}"); at != std::string::npos) {
      hint.replace(at, 4, job_id);
    }
    return "pending: " + std::string(explanation.words) + " (" + std::string(reason) + "); " + hint;
  }
  return "pending (" + std::string(reason) + "); `scontrol show job " + std::string(job_id) +
         "` says more";
}

}  // namespace sortie::slurm
