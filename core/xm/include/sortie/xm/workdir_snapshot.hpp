// File: core/xm/include/sortie/xm/workdir_snapshot.hpp
//
// The working directory an experiment's process units run from (docs/experiments.md, "The
// working directory units run from"): one snapshot of the launch directory per experiment, taken
// at its first launch of such units, so an edit made while units are queued does not reach them.
// Its files are hard links to read-only blobs of a content-addressed store shared by every
// snapshot; the schedulers that run units from it make it read-only to them (a read-only bind
// mount), and every blob can be checked against its name. Each snapshot has a manifest
// (sortie.workdir_snapshot/1) and a tree.sha256 (sha256sum's format) beside its tree, read back
// here for `sortie experiments show` and `sortie experiments verify`. Not installed.
#ifndef SORTIE_XM_WORKDIR_SNAPSHOT_HPP
#define SORTIE_XM_WORKDIR_SNAPSHOT_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sortie::xm {

struct WorkdirSnapshot {
  int64_t experiment_id = 0;
  std::string launch_dir;  // what was snapshotted
  std::string root;        // the copy units run from
  std::string digest;      // "sha256:<hex>" over every path, mode and content digest
  std::string rules;       // "git" (what .gitignore keeps) or "default" (outside git)
  int64_t files = 0;
  int64_t bytes = 0;
  int64_t files_read = 0;  // files hashed this time: those the digest cache did not know
  int64_t bytes_read = 0;
  int64_t created_at = 0;  // ns since the epoch
  // For the user, told by the launch that took it (not in the manifest): a blob found changed
  // since it was stored (moved to blobs/corrupt/ and stored again from the launch directory), a
  // repository git refuses as another user's.
  std::vector<std::string> warnings;
};

// What `sortie experiments verify` found.
struct SnapshotVerification {
  int64_t blobs = 0;  // checked, every one hashed
  int64_t bytes = 0;
  std::vector<std::string> corrupt_blobs;  // moved to blobs/corrupt/: never linked again
  std::vector<std::string> changed_files;  // of the named experiment's tree, against tree.sha256
};

// Where snapshots live: $SORTIE_SNAPSHOT_DIR, else the state dir's snapshots/. Units on other
// hosts (Slurm) run from here, so it must be on a file system they mount at the same path.
std::string workdir_snapshot_dir();

// Takes experiment `experiment_id`'s snapshot of `launch_dir`, replacing any it had.
WorkdirSnapshot take_workdir_snapshot(int64_t experiment_id, const std::string& launch_dir);

// The snapshot recorded for `experiment_id`, if it has one.
std::optional<WorkdirSnapshot> read_workdir_snapshot(int64_t experiment_id);

// Hashes every blob of the store, moving those whose content no longer matches their name aside,
// and with `experiment_id` checks each file of that experiment's tree against its tree.sha256.
SnapshotVerification verify_workdir_snapshots(std::optional<int64_t> experiment_id);

}  // namespace sortie::xm

#endif  // SORTIE_XM_WORKDIR_SNAPSHOT_HPP
