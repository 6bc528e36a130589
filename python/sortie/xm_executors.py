"""XManager's executors (xm_local.Local, Vertex/Caip, Kubernetes) and their specs. An executor
names a sortie executor type, resolved to a scheduler by the installed plugins (docs/payloads.md
P-14); what sortie cannot honour is refused by name, never ignored."""

import dataclasses
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
        return {'ports': dict(self.ports or {}), 'volumes': dict(self.volumes or {})}


@dataclasses.dataclass(frozen=True)
class ExecutorSpec:
    """Where executables are packaged for (xm_local.Local.Spec(), Vertex.Spec(...), ...)."""
    push_image_tag: Optional[str] = None

    def check_packageable(self):
        if self.push_image_tag is not None:
            _refuse(f'{type(self).__qualname__}(push_image_tag=...)',
                    "sortie's packagers choose where an image is pushed (the scheduler's "
                    'registry option); drop push_image_tag')


class _Executor:
    executor_type = ''

    def __init__(self, requirements: Optional[xm_resources.JobRequirements] = None):
        self.requirements = requirements or xm_resources.JobRequirements()

    def request(self):
        return {'type': self.executor_type, 'requirements': list(self.requirements.entries)}


class Local(_Executor):
    executor_type = 'local'

    class Spec(ExecutorSpec):
        pass

    def __init__(self, requirements=None, docker_options: Optional[DockerOptions] = None,
                 experimental_stream_output: bool = False):
        super().__init__(requirements)
        if experimental_stream_output:
            _refuse('Local(experimental_stream_output=True)', 'jobs write to their logs; read '
                    'them with `sortie log HANDLE` or sortie.runner log_lines')
        self.docker_options = docker_options

    def request(self):
        request = super().request()
        if self.docker_options is not None:
            request.update(self.docker_options.request())
        return request


class Vertex(_Executor):
    executor_type = 'vertex'

    class Spec(ExecutorSpec):
        pass

    def __init__(self, requirements=None, tensorboard=None):
        super().__init__(requirements)
        if tensorboard is not None:
            _refuse('Vertex(tensorboard=...)', 'sortie does not attach Vertex AI TensorBoard '
                    'instances; drop tensorboard')

    def request(self):
        # XManager takes the project from the environment (google.auth.default): so does this.
        request = super().request()
        project = os.environ.get('GOOGLE_CLOUD_PROJECT')
        if project:
            request['options'] = {'project': project}
        return request


Caip = Vertex


class Kubernetes(_Executor):
    executor_type = 'kubernetes'

    class Spec(ExecutorSpec):
        pass

    def __init__(self, requirements=None, cloud_provider=None, tpu_capability=None):
        super().__init__(requirements)
        for name, value in (('cloud_provider', cloud_provider), ('tpu_capability', tpu_capability)):
            if value is not None:
                _refuse(f'Kubernetes({name}=...)', 'sortie runs on the cluster of the current '
                        f'kubeconfig context; drop {name}')
