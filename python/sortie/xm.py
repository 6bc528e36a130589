"""XManager's `xm` module on sortie: `from sortie import xm` in place of `from xmanager import xm`.
See docs/python.md for the mapping, name by name, and what is refused."""

# pylint: disable=unused-import
from sortie.xm_args import SequentialArgs, UserArgs, merge_args
from sortie.xm_executables import (Binary, BazelBinary, BazelContainer, CommandList, Container,
                                   Dockerfile, Executable, ExecutableSpec, ModuleName,
                                   PythonContainer)
from sortie.xm_executors import DockerOptions, ExecutorSpec
from sortie.xm_experiment import (Experiment, ExperimentUnitError, ExperimentUnitFailedError,
                                  ExperimentUnitStatus, WorkUnit, run_in_asyncio_loop)
from sortie.xm_jobs import (Job, JobGroup, Packageable, bazel_binary, bazel_container, binary,
                            container, dockerfile_container, python_container)
from sortie.xm_resources import (GB, KB, MB, PB, TB, GiB, JobRequirements, KiB, MiB, PiB,
                                 ResourceType, TiB, Topology, vCPU)
