// A process's read-only view of directories it would otherwise be able to write: the working
// directory snapshots of experiments (docs/experiments.md XF-29) are hard links into a store
// shared by every snapshot, and file modes stop no root process, so the schedulers that run
// units from them (local, slurm) make them read-only in a mount namespace of the units' own.
#ifndef SORTIE_PLUGINS_COMMON_READ_ONLY_VIEW_HPP
#define SORTIE_PLUGINS_COMMON_READ_ONLY_VIEW_HPP

#include <string>
#include <vector>

namespace sortie::plugins_common {

// Moves this process (single-threaded) into a mount namespace of its own where each of `dirs` is
// bind-mounted read-only onto itself, so that it and the processes it starts can write none of
// them, root included; nothing outside the namespace changes. Root gets a plain mount namespace
// whose mounts no longer propagate back; where that is not possible (in a chroot, or without
// privileges) a user namespace mapping the same ids is made first. Returns "" on success, else
// why not, naming the step and the system's reason.
std::string enter_read_only_view(const std::vector<std::string>& dirs);

}  // namespace sortie::plugins_common

#endif  // SORTIE_PLUGINS_COMMON_READ_ONLY_VIEW_HPP
