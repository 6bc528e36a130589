"""XManager's Packageable, Job and JobGroup, and the shorteners (xm.binary, xm.python_container,
...) that make Packageables."""

import dataclasses
from typing import Dict, Optional, Sequence

from sortie import xm_args
from sortie import xm_executables as executables
from sortie import xm_late_bindings


def _resolved(executor_type, args, env_vars):
    """(args items, env) with the late bindings as `executor_type` runs them."""
    def resolve(value):
        return xm_late_bindings.resolve_for(executor_type, value)
    return (xm_args.SequentialArgs.from_collection(args).rewrite_args(resolve).items(),
            {name: resolve(value) for name, value in env_vars.items()})


@dataclasses.dataclass
class Packageable:
    executable_spec: executables.ExecutableSpec
    executor_spec: object
    args: xm_args.UserArgs = None
    env_vars: Dict[str, str] = dataclasses.field(default_factory=dict)

    def request(self):
        """(spec, args, env_vars, name, remote_destination) for the compiled module."""
        self.executor_spec.run_options()  # refuses what the spec cannot honour, before packaging
        args, env_vars = _resolved(self.executor_spec.executor_type, self.args, self.env_vars)
        return (self.executable_spec.spec(), args, env_vars, None, self.executor_spec.remote)


@dataclasses.dataclass
class Job:
    executable: executables.Executable
    executor: object
    name: Optional[str] = None
    args: xm_args.UserArgs = None
    env_vars: Dict[str, str] = dataclasses.field(default_factory=dict)

    def request(self):
        """(executable, executor, name, args, env_vars) for the compiled module."""
        if not isinstance(self.executable, executables.Executable):
            raise TypeError('Job.executable must be an executable returned by '
                            f'experiment.package(...), got {self.executable!r}')
        args, env_vars = _resolved(self.executor.executor_type, self.args, self.env_vars)
        run_options = self.executable.run_options
        if self.executor.executor_type == 'local' and self.executable._packaged.kind == 'image':
            # As XManager's local containers, a packaged image runs as built: local_docker lays
            # no workspace over it (docs/docker-scheduler.md image_provider).
            run_options = {**run_options, 'image_provider': ''}
        return (self.executable._packaged, self.executor.request(run_options), self.name, args,
                env_vars)


class JobGroup:
    """A gang of jobs, started and cancelled together: JobGroup(name=Job(...), ...)."""

    def __init__(self, **jobs):
        self.jobs = jobs

    def request(self):
        """[(name, job request or nested group list)] for the compiled module."""
        if not self.jobs:
            raise ValueError('JobGroup: a job group needs at least one job')
        members = []
        for name, job in self.jobs.items():
            if not isinstance(job, (Job, JobGroup)):
                raise TypeError(f'JobGroup member {name!r} must be an xm.Job or xm.JobGroup, '
                                f'got {job!r}')
            members.append((name, job.request()))
        return members


def binary(executor_spec, path: str, dependencies: Sequence[object] = (), *, args=None,
           env_vars=None):
    return Packageable(executables.Binary(path, dependencies), executor_spec, args,
                       dict(env_vars or {}))


def bazel_binary(executor_spec, label: str, dependencies: Sequence[object] = (),
                 bazel_args: Sequence[str] = (), *, args=None, env_vars=None):
    return Packageable(executables.BazelBinary(label, dependencies, bazel_args), executor_spec,
                       args, dict(env_vars or {}))


def container(executor_spec, image_path: str, *, args=None, env_vars=None):
    return Packageable(executables.Container(image_path), executor_spec, args,
                       dict(env_vars or {}))


def bazel_container(executor_spec, label: str, bazel_args: Sequence[str] = (), *, args=None,
                    env_vars=None):
    return Packageable(executables.BazelContainer(label, bazel_args), executor_spec, args,
                       dict(env_vars or {}))


def python_container(executor_spec, path: str = '.', base_image: Optional[str] = None,
                     entrypoint=executables.ModuleName('__main__'), use_deep_module=False,
                     docker_instructions=None, *, args=None, env_vars=None):
    spec = executables.PythonContainer(entrypoint, path, base_image, docker_instructions,
                                       use_deep_module)
    return Packageable(spec, executor_spec, args, dict(env_vars or {}))


def dockerfile_container(executor_spec, path: str = '.', dockerfile: Optional[str] = None, *,
                         args=None, env_vars=None):
    return Packageable(executables.Dockerfile(path, dockerfile), executor_spec, args,
                       dict(env_vars or {}))
