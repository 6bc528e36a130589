"""XManager's executors (xm_local.Local, Vertex/Caip, Kubernetes, xm_slurm.Slurm) and their
specs. An executor names a sortie executor type, resolved to a scheduler by the installed plugins
(docs/payloads.md P-14); what sortie cannot honour is refused by name, never ignored."""

import dataclasses
import datetime
import os
from typing import Dict, Optional

from sortie import xm_resources


def _refuse(what, why):
    raise ValueError(f'{what}: {why}')


@dataclasses.dataclass
class DockerOptions:
    ports: Optional[Dict[int, int]] = None
    volumes: Optional[Dict[str, str]] = None
    mount_gcs_path: bool = True
    interactive: bool = False

    def request(self):
        if self.interactive:
            _refuse('DockerOptions(interactive=True)', 'sortie runs containers detached and '
                    'cannot attach a terminal to them; drop interactive')
        # XManager mounts ~/gcs only where it exists; sortie has no such mount.
        if self.mount_gcs_path and os.path.isdir(os.path.expanduser('~/gcs')):
            _refuse('DockerOptions(mount_gcs_path=True)', 'sortie does not mount ~/gcs; pass it '
                    "in volumes={'~/gcs': '/gcs'} or set mount_gcs_path=False")
        return {'ports': _published_ports(self.ports or {}), 'volumes': dict(self.volumes or {})}


def _published_ports(ports):
    """XManager's (docker-py's) ports, {CONTAINER: HOST}, as container port -> host port: a
    container port an int or 'N/tcp', a host port an int, None (Docker picks one) or
    ('127.0.0.1', N). local_docker publishes them on 127.0.0.1 (`docker run -p
    127.0.0.1:HOST:CONTAINER`), where XManager binds every interface: a job's port is not opened
    to the network unasked, so ('0.0.0.0', N) is refused rather than narrowed silently."""
    published = {}
    for container, host in ports.items():
        what = f'DockerOptions(ports={{{container!r}: {host!r}}})'
        if isinstance(container, str) and container.endswith('/tcp'):
            container = container[:-len('/tcp')]
        if isinstance(container, str) and container.isdigit():
            container = int(container)
        if not isinstance(container, int) or isinstance(container, bool) or \
                not 1 <= container <= 65535:
            _refuse(what, 'a container port is a number from 1 to 65535 or \'N/tcp\' (UDP '
                    'ports are not published)')
        if isinstance(host, tuple) and len(host) == 2 and host[0] == '127.0.0.1':
            host = host[1]
        if host is None:
            host = 0
        if not isinstance(host, int) or isinstance(host, bool) or not 0 <= host <= 65535:
            _refuse(what, 'a host port is a number from 0 to 65535, None or (\'127.0.0.1\', N): '
                    'sortie publishes on 127.0.0.1 only (another address, every interface '
                    'included, and lists of host ports are not supported)')
        published[container] = host
    return published


@dataclasses.dataclass(frozen=True)
class ExecutorSpec:
    """Where executables are packaged for (xm_local.Local.Spec(), Vertex.Spec(...), ...)."""
    # A remote executor's scheduler pulls an xm.Container's image reference itself: it is not
    # pulled into the local Docker Engine.
    remote = False
    # The executor_type of the executors it packages for ('' for every local one).
    executor_type = ''

    def run_options(self):
        """Run options the jobs of executables packaged for this spec pass to their scheduler."""
        return {}


@dataclasses.dataclass(frozen=True)
class _VertexSpec(ExecutorSpec):
    push_image_tag: Optional[str] = None
    remote = True
    executor_type = 'vertex'

    def run_options(self):
        # The vertex scheduler pushes a locally built image to this tag before submitting.
        return {} if self.push_image_tag is None else {'push_image_tag': self.push_image_tag}


@dataclasses.dataclass(frozen=True)
class _KubernetesSpec(ExecutorSpec):
    push_image_tag: Optional[str] = None
    remote = True

    def run_options(self):
        if self.push_image_tag is not None:
            _refuse('Kubernetes.Spec(push_image_tag=...)',
                    'the kubernetes scheduler runs images from a registry it can pull from; '
                    'push the image there and package it as xm.Container(image_path=...)')
        return {}


class _Executor:
    executor_type = ''

    def __init__(self, requirements: Optional[xm_resources.JobRequirements] = None):
        self.requirements = requirements or xm_resources.JobRequirements()

    def request(self, run_options=None):
        """The executor for the compiled module; `run_options` come from the executable's
        ExecutorSpec (e.g. Vertex.Spec(push_image_tag))."""
        request = {'type': self.executor_type, 'requirements': list(self.requirements.entries)}
        if run_options:
            request['options'] = dict(run_options)
        return request


class Local(_Executor):
    executor_type = 'local'
    Spec = ExecutorSpec

    def __init__(self, requirements=None, docker_options: Optional[DockerOptions] = None,
                 experimental_stream_output: bool = False):
        """experimental_stream_output=True prints the job's output on this terminal as it
        comes (sortie.xm_stream_output); it is False by default, where XManager's is True, so
        a launch script's own output stays its own (`sortie log HANDLE` reads a job's)."""
        super().__init__(requirements)
        self.docker_options = docker_options
        self.experimental_stream_output = experimental_stream_output

    def request(self, run_options=None):
        request = super().request(run_options)
        if self.docker_options is not None:
            request.update(self.docker_options.request())
        return request


class Vertex(_Executor):
    executor_type = 'vertex'
    Spec = _VertexSpec

    def __init__(self, requirements=None, tensorboard=None):
        """`tensorboard`: an xm_local.TensorboardCapability, the vertex run options
        tensorboard (its name) and base_output_dir (its base_output_directory)."""
        super().__init__(requirements)
        self._tensorboard = {}
        if tensorboard is not None:
            self._tensorboard = {'tensorboard': tensorboard.name,
                                 'base_output_dir': tensorboard.base_output_directory}

    def request(self, run_options=None):
        # XManager takes the project from the environment (google.auth.default): so does this.
        project = os.environ.get('GOOGLE_CLOUD_PROJECT')
        return super().request({**({'project': project} if project else {}),
                                **self._tensorboard, **(run_options or {})})


Caip = Vertex


class Kubernetes(_Executor):
    executor_type = 'kubernetes'
    Spec = _KubernetesSpec

    def __init__(self, requirements=None, cloud_provider=None, tpu_capability=None):
        super().__init__(requirements)
        for name, value in (('cloud_provider', cloud_provider), ('tpu_capability', tpu_capability)):
            if value is not None:
                _refuse(f'Kubernetes({name}=...)', 'sortie runs on the cluster of the current '
                        f'kubeconfig context; drop {name}')


def _slurm_time(time):
    """A time limit as sbatch --time takes it: a datetime.timedelta, minutes, or sbatch's text."""
    if isinstance(time, datetime.timedelta):
        seconds = int(time.total_seconds())
        if seconds <= 0 or time != datetime.timedelta(seconds=seconds):
            _refuse(f'Slurm(time={time!r})', 'give a positive whole number of seconds')
        minutes, seconds = divmod(seconds, 60)
        hours, minutes = divmod(minutes, 60)
        days, hours = divmod(hours, 24)
        return f'{days}-{hours:02d}:{minutes:02d}:{seconds:02d}'
    if isinstance(time, int) and not isinstance(time, bool):
        if time <= 0:
            _refuse(f'Slurm(time={time!r})', 'give a positive number of minutes')
        return str(time)
    if isinstance(time, str) and time:
        return time
    return _refuse(f'Slurm(time={time!r})', 'give a datetime.timedelta, minutes as an int, or '
                   "sbatch's --time text such as '1:00:00'")


class Slurm(_Executor):
    """Runs jobs as Slurm batch jobs (the slurm scheduler; docs/slurm-scheduler.md). Each
    argument is the slurm run option of the same name; a sweep added as one
    `experiment.add(job, args=[...])` is one job array, at most `array_parallelism` units
    running at once (0: no limit)."""
    executor_type = 'slurm'
    Spec = ExecutorSpec

    def __init__(self, requirements=None, *, partition: Optional[str] = None, time=None,
                 account: Optional[str] = None, qos: Optional[str] = None,
                 constraint: Optional[str] = None, exclusive: bool = False,
                 array_parallelism: int = 0):
        super().__init__(requirements)
        if not isinstance(array_parallelism, int) or array_parallelism < 0:
            _refuse(f'Slurm(array_parallelism={array_parallelism!r})',
                    'give how many work units of a sweep run at once (0: no limit)')
        self.options = {'array_parallelism': str(array_parallelism)}
        for name, value in (('partition', partition), ('account', account), ('qos', qos),
                            ('constraint', constraint)):
            if value is not None:
                self.options[name] = value
        if time is not None:
            self.options['time'] = _slurm_time(time)
        if exclusive:
            self.options['exclusive'] = 'true'

    def request(self, run_options=None):
        return super().request({**self.options, **(run_options or {})})
