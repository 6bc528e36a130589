// Launching one work unit: each job's executor and packaged kind pick a scheduler through the
// registry's sortie.executors entries (docs/payloads.md P-14); a job becomes a role. A JobGroup
// is one app with a role per job, so its scheduler starts and cancels the jobs together (the
// gang); a single Job is an app of its own.
#ifndef SORTIE_XM_WORK_UNIT_LAUNCH_HPP
#define SORTIE_XM_WORK_UNIT_LAUNCH_HPP

#include <functional>
#include <sortie/session/session.hpp>
#include <sortie/store/store.hpp>
#include <sortie/xm.hpp>
#include <string>
#include <utility>
#include <vector>

// Not exported by libsortie_launch (launch_library.map exports sortie::xm).
#pragma GCC visibility push(hidden)
namespace sortie::xm::detail {

struct WorkUnitJobs {
  int64_t experiment_id = 0;
  int work_unit_id = 0;
  std::vector<std::pair<std::string, Job>> jobs;  // flattened name -> job, overrides applied
  bool gang = false;                              // from a JobGroup
  bool dry_run = false;                           // only ask each scheduler for its request
};

struct LaunchedJob {
  store::ExperimentJobRecord record;  // handle empty in a dry run
  std::string dryrun_json;            // the scheduler's request (P-7)
};

// Where process units run whose executor can run them from a directory (its entry's `workdir`,
// P-14): the experiment's snapshot of its launch directory, taken when first asked for.
struct RunDirectory {
  std::string launch_dir;
  std::function<std::string()> snapshot_root;  // none: from the live directory, as started
};

// Submits the work units and records their jobs under them in the store (in a dry run:
// neither); returns each unit's jobs. Every app is dry-run before any is submitted; the apps of a
// scheduler that offers schedule_batch (ABI-14), e.g. a sweep's units on slurm, are submitted in
// one call (one Slurm job array), the others one by one.
std::vector<std::vector<LaunchedJob>> launch_work_units(session::Session& ctx,
                                                        const std::string& session,
                                                        const std::vector<WorkUnitJobs>& units,
                                                        const RunDirectory& run_directory);

// Submits each app of the recorded units' latest attempts (`jobs`) again as their next attempt: the
// recorded app (roles, args, env, executables) with the run options it resolved, dry-run again for
// a fresh app id, and batched per scheduler as launch_work_units does (one Slurm job array).
// Returns each unit's new jobs.
std::vector<std::vector<LaunchedJob>> relaunch_work_units(
    session::Session& ctx, const std::vector<store::WorkUnitRecord>& units);

}  // namespace sortie::xm::detail
#pragma GCC visibility pop

#endif  // SORTIE_XM_WORK_UNIT_LAUNCH_HPP
