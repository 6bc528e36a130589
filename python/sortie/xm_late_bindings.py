"""XManager's late bindings: `%objectname(workerpoolN)%`, which
xmanager.cloud.utils.get_workerpool_address gives, stands for the host:port of worker pool N's
first replica and is resolved where the job runs. On Vertex AI the text goes to the vertex
plugin as it is, and the job's wrapper replaces it from CLUSTER_SPEC when the replica starts (as
XManager's wrapped entrypoint does; docs/python.md); on every other executor sortie
writes it as the rank-0 host macro and torch's rendezvous port, which the scheduler substitutes
(payloads.md P-12)."""

import re

from sortie import _refusal
from sortie import specs

_LATE_BINDING = re.compile(r'%objectname\(([^)%]*)\)%')
RENDEZVOUS_PORT = 29500


def workerpool_address(workerpool: str) -> str:
    return f'%objectname({workerpool})%'


def _address(match) -> str:
    if match.group(1) != 'workerpool0':
        raise _refusal.refusal(
            f'get_workerpool_address({match.group(1)!r}) outside Vertex AI',
            'only workerpool0, the rank-0 replica, has an address where sortie runs the job '
            '(${rank0_host}); give the other jobs their peers through it')
    return f'{specs.macros.rank0_host}:{RENDEZVOUS_PORT}'


def resolve_for(executor_type: str, value):
    """A job's arg or env value as `executor_type` runs it: late bindings stay for 'vertex'
    and become ${rank0_host}:29500 elsewhere; a value that is not text is itself."""
    if executor_type == 'vertex' or not isinstance(value, str):
        return value
    return _LATE_BINDING.sub(_address, value)
