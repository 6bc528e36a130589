"""Slurm for XManager-style launch scripts: `from sortie import xm_slurm`, then
`xm_slurm.Slurm(partition=..., time=..., array_parallelism=...)` as a job's executor. Experiments
are recorded in sortie's store, as with xm_local."""

# pylint: disable=unused-import
from sortie.xm_executors import Slurm
from sortie.xm_experiment import create_experiment, get_experiment, list_experiments
