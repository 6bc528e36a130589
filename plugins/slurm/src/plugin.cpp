// The entry point of the slurm plugin: one scheduler.
#include <sortie/version.h>

#include <sortie/plugin.hpp>

#include "slurm_scheduler.hpp"

SORTIE_PLUGIN("sortie_slurm", SORTIE_VERSION,
              SORTIE_SCHEDULER("slurm", "Runs each app as one Slurm batch job (sbatch, srun)",
                               sortie::slurm::SlurmScheduler));
