// The processes a replica's program started, found through /proc, for sortie-slurm-task to end
// them with the program: processes that setsid(), double-fork or were orphaned are found too,
// since the task is their subreaper (PR_SET_CHILD_SUBREAPER) and so still their ancestor.
#ifndef SORTIE_SLURM_PROCESS_TREE_HPP
#define SORTIE_SLURM_PROCESS_TREE_HPP

#include <sys/types.h>

#include <vector>

namespace sortie::slurm {

// Every process whose chain of parents reaches `root` (not root itself), as /proc shows it now.
std::vector<pid_t> descendants_of(pid_t root);

// Sends `signal` to every descendant of `root`; returns how many there were.
size_t signal_descendants(pid_t root, int signal);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_PROCESS_TREE_HPP
