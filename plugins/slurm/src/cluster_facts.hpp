// What a dryrun needs to know about the cluster it submits to, asked only when the app needs it:
// whether memory is a consumable resource (else --mem is dropped, with a warning) and how many
// nodes the partition has (a heterogeneous job needs one per role).
#ifndef SORTIE_SLURM_CLUSTER_FACTS_HPP
#define SORTIE_SLURM_CLUSTER_FACTS_HPP

#include <cstdint>
#include <string>

#include "run_options.hpp"

namespace sortie::slurm {

// True when SelectTypeParameters includes MEMORY (CR_Core_Memory, CR_CPU_Memory, ...).
bool memory_is_consumable(const SlurmTools& tools);

// MaxArraySize: a job array's indices must be below it (0: arrays are disabled).
int64_t max_array_size(const SlurmTools& tools);

// Nodes in `partition` ("" = the default partition) that are not down or drained.
int64_t usable_nodes(const SlurmTools& tools, const std::string& partition);

}  // namespace sortie::slurm

#endif  // SORTIE_SLURM_CLUSTER_FACTS_HPP
