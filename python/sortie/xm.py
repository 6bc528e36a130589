"""XManager's `xm` module on sortie: `from sortie import xm` in place of `from xmanager import xm`
(inside `sortie launch`, `from xmanager import xm` gives this module). See docs/python.md for the
mapping, name by name, and what is refused: reading a refused name raises
sortie.UnsupportedNameError naming it and what to use instead."""

from typing import Any, Callable, Dict, Union

# pylint: disable=unused-import
from sortie import _refusal
from sortie.xm_args import SequentialArgs, UserArgs, merge_args
from sortie.xm_executables import (Binary, BazelBinary, BazelContainer, CommandList, Container,
                                   Dockerfile, Executable, ExecutableSpec, ModuleName,
                                   PythonContainer)
from sortie.xm_executors import DockerOptions, ExecutorSpec
from sortie.xm_executors import _Executor as Executor
from sortie.xm_experiment import (AuxiliaryUnitJob, Experiment, ExperimentContext as MetadataContext,
                                  ExperimentAnnotations as ContextAnnotations,
                                  ExperimentUnitError, ExperimentUnitFailedError,
                                  ExperimentUnitStatus, WorkUnit, run_in_asyncio_loop)
from sortie.xm_jobs import (Job, JobGroup, Packageable, bazel_binary, bazel_container, binary,
                            container, dockerfile_container, python_container)
from sortie.xm_resources import (GB, KB, MB, PB, TB, AcceleratorType, GiB, GpuType,
                                 InvalidTpuTopologyError, JobRequirements, KiB, MiB, PiB,
                                 ResourceDict, ResourceQuantity, ResourceType, ServiceTier, TiB,
                                 Topology, TpuType, vCPU)

# A WorkUnit is XManager's ExperimentUnit, and what add() returns is awaitable itself.
ExperimentUnit = WorkUnit
WorkUnitCompletedAwaitable = WorkUnit
JobType = Union[Job, JobGroup, Callable[..., Any]]
JobGeneratorType = Callable[..., Any]
JobConfig = Union[Job, JobGroup]


class ExperimentUnitNotCompletedError(ExperimentUnitError):
    """A work unit that has not completed (XManager's name)."""


class NotFoundError(KeyError):
    """An experiment or work unit that does not exist (XManager's name)."""


class ReloadError(ValueError):
    """XManager's error of a reloaded experiment (XManager's name)."""


class ShellSafeArg(str):
    """An argument XManager would not quote. sortie passes arguments as words, never through a
    shell, so it is its text as is."""

    @property
    def arg(self) -> str:
        return str(self)


def get_args_for_all_jobs(job: Union[Job, JobGroup], args: Dict[str, Any]) -> Dict[str, Any]:
    """The `args` of experiment.add that give every job of `job` the keyword arguments `args`."""
    if isinstance(job, JobGroup):
        return {name: get_args_for_all_jobs(member, args) for name, member in job.jobs.items()}
    return {'args': args}


_ROLES = ('experiment.add(role=...) is refused: add a helper (a TensorBoard, say) as '
          'experiment.add(xm.AuxiliaryUnitJob(job))')

__getattr__ = _refusal.module_getattr('xmanager.xm', {
    'job_operators': 'sortie builds JobGroups itself; combine Jobs with xm.JobGroup',
    'AuxiliaryUnit': _ROLES,
    'AuxiliaryUnitRole': _ROLES,
    'ExperimentUnitRole': _ROLES,
    'WorkUnitRole': _ROLES,
    'LaunchedJob': 'work_unit.handles lists the apps of a unit (sortie status HANDLE)',
    'DebugInterrupt': 'sortie has no launch debugger; use sortie launch --dryrun',
    'Importance': 'sortie schedules without importance; use the scheduler\'s priority run '
                  'option (e.g. kubernetes priority_class, slurm qos)',
    'BinaryDependency': 'executables take no dependencies=; package the files with the '
                        'executable (a PythonContainer path, a Dockerfile)',
    'Constraint': 'placement constraints are refused; use the scheduler\'s run options (e.g. '
                  'slurm constraint)',
    'Architecture': 'sortie runs on the architecture of the scheduler\'s nodes; give a '
                    'JobRequirements location or a named resource',
})
