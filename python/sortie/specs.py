"""TorchX's `torchx.specs` on sortie: `from sortie import specs` in place of
`from torchx import specs`. An AppDef is written as a sortie app spec (docs/specs.md, the JSON
form of payloads.md P-1) for the C++ runner, and read back from it by Runner.describe."""

import dataclasses
import enum
from typing import Any, Dict, List, Optional, Union


class macros:  # pylint: disable=invalid-name  (TorchX's name)
    """Placeholders the scheduler substitutes per replica (payloads.md P-12)."""
    app_id = '${app_id}'
    replica_id = '${replica_id}'
    num_replicas = '${num_replicas}'
    role_name = '${role_name}'
    img_root = '${img_root}'
    rank0_env = '${rank0_env}'
    rank0_host = '${rank0_host}'
    free_port = '${free_port}'  # a port no other live app on the host holds (P-12.1)
    experiment_id = '${experiment_id}'  # of an experiment's job, the same in every rerun (P-12.2)
    work_unit_id = '${work_unit_id}'


@dataclasses.dataclass
class Resource:
    cpu: float
    gpu: int
    memMB: int  # pylint: disable=invalid-name  (TorchX's name)
    capabilities: Dict[str, Any] = dataclasses.field(default_factory=dict)
    devices: Dict[str, int] = dataclasses.field(default_factory=dict)

    @staticmethod
    def copy(original: 'Resource', **capabilities) -> 'Resource':
        return Resource(original.cpu, original.gpu, original.memMB,
                        {**original.capabilities, **capabilities}, dict(original.devices))

    def spec(self):
        fields = {name: value for name, value in (('cpu', self.cpu), ('gpu', self.gpu),
                                                    ('memMB', self.memMB)) if value != -1}
        return {**fields, 'capabilities': {k: str(v) for k, v in self.capabilities.items()},
                'devices': dict(self.devices)}


NULL_RESOURCE = Resource(cpu=-1, gpu=-1, memMB=-1)


@dataclasses.dataclass(frozen=True)
class NamedResource:
    """A resource named in the registry (group sortie.named_resources), resolved at run time."""
    name: str

    def spec(self):
        return self.name


class _NamedResources:
    """named_resources["gpu.small"]: a resource by name. The names come from the installed
    plugins and are checked when the app runs (`sortie resources` lists them)."""

    def __getitem__(self, name: str) -> NamedResource:
        return NamedResource(name)


named_resources = _NamedResources()


class RetryPolicy(str, enum.Enum):
    REPLICA = 'REPLICA'
    APPLICATION = 'APPLICATION'
    ROLE = 'ROLE'


@dataclasses.dataclass
class BindMount:
    src_path: str
    dst_path: str
    read_only: bool = False

    def spec(self):
        return {'type': 'bind', 'src': self.src_path, 'dst': self.dst_path,
                'read_only': self.read_only}


@dataclasses.dataclass
class VolumeMount:
    src: str
    dst_path: str
    read_only: bool = False

    def spec(self):
        return {'type': 'volume', 'src': self.src, 'dst': self.dst_path,
                'read_only': self.read_only}


@dataclasses.dataclass
class DeviceMount:
    src_path: str
    dst_path: str
    permissions: str = 'rwm'

    def spec(self):
        return {'type': 'device', 'src': self.src_path, 'dst': self.dst_path,
                'permissions': self.permissions}


def _mount_of(spec):
    if spec['type'] == 'bind':
        return BindMount(spec['src'], spec['dst'], spec.get('read_only', False))
    if spec['type'] == 'volume':
        return VolumeMount(spec['src'], spec['dst'], spec.get('read_only', False))
    return DeviceMount(spec['src'], spec.get('dst', spec['src']), spec.get('permissions', 'rwm'))


@dataclasses.dataclass
class Role:
    name: str
    image: str
    min_replicas: Optional[int] = None
    base_image: Optional[str] = None
    entrypoint: str = ''
    args: List[str] = dataclasses.field(default_factory=list)
    env: Dict[str, str] = dataclasses.field(default_factory=dict)
    num_replicas: int = 1
    max_retries: int = 0
    retry_policy: RetryPolicy = RetryPolicy.APPLICATION
    resource: Union[Resource, NamedResource] = dataclasses.field(
        default_factory=lambda: Resource.copy(NULL_RESOURCE))
    port_map: Dict[str, int] = dataclasses.field(default_factory=dict)
    metadata: Dict[str, Any] = dataclasses.field(default_factory=dict)
    mounts: List[Union[BindMount, VolumeMount, DeviceMount]] = dataclasses.field(
        default_factory=list)

    def spec(self):
        return {'name': self.name, 'image': self.image, 'min_replicas': self.min_replicas,
                'base_image': self.base_image, 'entrypoint': self.entrypoint,
                'args': [str(arg) for arg in self.args],
                'env': {key: str(value) for key, value in self.env.items()},
                'num_replicas': self.num_replicas, 'max_retries': self.max_retries,
                'retry_policy': RetryPolicy(self.retry_policy).value,
                'resource': self.resource.spec(), 'port_map': dict(self.port_map),
                'metadata': dict(self.metadata), 'mounts': [m.spec() for m in self.mounts]}


@dataclasses.dataclass
class AppDef:
    name: str
    roles: List[Role] = dataclasses.field(default_factory=list)
    metadata: Dict[str, str] = dataclasses.field(default_factory=dict)

    def spec(self):
        return {'name': self.name, 'roles': [role.spec() for role in self.roles],
                'metadata': dict(self.metadata)}


def app_def_of(spec) -> AppDef:
    """The AppDef of a P-1 payload (what the store recorded when the app ran)."""
    roles = []
    for role in spec.get('roles', []):
        resource = role.get('resource') or {}
        roles.append(Role(
            name=role['name'], image=role.get('image', ''), min_replicas=role.get('min_replicas'),
            base_image=role.get('base_image'), entrypoint=role.get('entrypoint', ''),
            args=list(role.get('args', [])), env=dict(role.get('env', {})),
            num_replicas=role.get('num_replicas', 1), max_retries=role.get('max_retries', 0),
            retry_policy=RetryPolicy(role.get('retry_policy', 'APPLICATION')),
            resource=Resource(resource.get('cpu', -1), resource.get('gpu', -1),
                              resource.get('memMB', -1), dict(resource.get('capabilities', {})),
                              dict(resource.get('devices', {}))),
            port_map=dict(role.get('port_map', {})), metadata=dict(role.get('metadata', {})),
            mounts=[_mount_of(mount) for mount in role.get('mounts', [])]))
    return AppDef(spec['name'], roles, dict(spec.get('metadata', {})))


class AppState(enum.IntEnum):
    UNSUBMITTED = 0
    SUBMITTED = 1
    PENDING = 2
    RUNNING = 3
    SUCCEEDED = 4
    FAILED = 5
    CANCELLED = 6
    UNKNOWN = 7

    def __str__(self):
        return self.name


_TERMINAL_STATES = (AppState.SUCCEEDED, AppState.FAILED, AppState.CANCELLED)


def is_terminal(state: AppState) -> bool:
    return state in _TERMINAL_STATES


class AppStatusError(Exception):
    def __init__(self, status: 'AppStatus', *args):
        super().__init__(*args)
        self.status = status


@dataclasses.dataclass
class ReplicaStatus:
    id: int  # pylint: disable=invalid-name  (TorchX's name)
    state: AppState
    role: str
    hostname: str
    structured_error_msg: str = '<NONE>'


@dataclasses.dataclass
class RoleStatus:
    role: str
    replicas: List[ReplicaStatus]


@dataclasses.dataclass
class AppStatus:
    state: AppState
    num_restarts: int = 0
    msg: str = ''
    structured_error_msg: str = '<NONE>'
    ui_url: Optional[str] = None
    roles: List[RoleStatus] = dataclasses.field(default_factory=list)

    def is_terminal(self) -> bool:
        return is_terminal(self.state)

    def raise_for_status(self) -> None:
        if self.state != AppState.SUCCEEDED:
            raise AppStatusError(self, f'job did not succeed: {self}')


def app_status_of(status) -> AppStatus:
    """The AppStatus of the compiled module's status dict."""
    roles = [RoleStatus(role['role'], [
        ReplicaStatus(replica['id'], AppState[replica['state']], role['role'],
                      replica['hostname']) for replica in role['replicas']])
             for role in status['roles']]
    return AppStatus(AppState[status['state']], status['num_restarts'], status['message'],
                     status['structured_error_msg'] or '<NONE>', status['ui_url'] or None, roles)


AppHandle = str


@dataclasses.dataclass
class ParsedAppHandle:
    scheduler_backend: str
    session_name: str
    app_id: str


class MalformedAppHandleException(Exception):
    pass


def parse_app_handle(app_handle: AppHandle) -> ParsedAppHandle:
    """SCHEDULER://SESSION/APP_ID into its parts."""
    scheduler, separator, rest = app_handle.partition('://')
    session, slash, app_id = rest.partition('/')
    if not (scheduler and separator and slash and app_id):
        raise MalformedAppHandleException(
            f'{app_handle!r} is not an app handle; handles read SCHEDULER://SESSION/APP_ID')
    return ParsedAppHandle(scheduler, session, app_id)
