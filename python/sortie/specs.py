"""TorchX's `torchx.specs` on sortie: `from sortie import specs` in place of
`from torchx import specs`. An AppDef is written as a sortie app spec (docs/specs.md, the JSON
form of payloads.md P-1) for the C++ runner, and read back from it by Runner.describe."""

import dataclasses
import difflib
import enum
import json
import os
from typing import Any, Dict, Iterator, List, Optional, Union

from sortie import _refusal
from sortie import _sortie


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


_native_runner = None


def _native():
    """The compiled module's Runner, made on first use (it opens the registry)."""
    global _native_runner  # pylint: disable=global-statement
    if _native_runner is None:
        _native_runner = _sortie.Runner('')
    return _native_runner


@dataclasses.dataclass(frozen=True)
class NamedResource:
    """A resource named in the registry (group sortie.named_resources). The app carries the
    name, resolved by the scheduler's host when it runs; reading cpu, gpu, memMB, capabilities
    or devices resolves it here (a plugin's resource loads that plugin)."""
    name: str

    def spec(self):
        return self.name

    def resolved(self) -> Resource:
        text = _native().named_resource_json(self.name)
        if text is None:
            raise KeyError(f'no named resource {self.name!r}; `sortie resources` lists them')
        fields = json.loads(text)
        return Resource(fields.get('cpu', -1), fields.get('gpu', -1), fields.get('memMB', -1),
                        dict(fields.get('capabilities', {})), dict(fields.get('devices', {})))

    def __getattr__(self, field):
        if field in ('cpu', 'gpu', 'memMB', 'capabilities', 'devices'):
            return getattr(self.resolved(), field)
        raise AttributeError(field)


class _NamedResources:
    """named_resources["gpu.small"]: a resource by name, from the installed manifests and
    plugins (`sortie resources` lists them). Unlike TorchX's, it can be listed: iteration
    yields the names, `in` and len() work; an unknown name raises KeyError at lookup."""

    def _names(self) -> List[str]:
        return _native().registered_names('sortie.named_resources')

    def __getitem__(self, name: str) -> NamedResource:
        names = self._names()
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f"did you mean {close[0]!r}?" if close else f'registered: {names}'
            raise KeyError(f'no named resource {name!r}; {hint}')
        return NamedResource(name)

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def keys(self) -> List[str]:
        return self._names()


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
    overrides: Dict[str, Any] = dataclasses.field(default_factory=dict)

    def pre_proc(self, scheduler: str, dryrun_info: 'AppDryRunInfo') -> 'AppDryRunInfo':
        """TorchX's hook to edit a scheduler request per role; sortie's requests are made by
        the scheduler plugins, so it returns dryrun_info unchanged, as TorchX's default."""
        del scheduler
        return dryrun_info

    def spec(self):
        if self.overrides:
            raise _refusal.refusal(
                'specs.Role(overrides=...)', 'scheduler-specific request fields are run '
                'options (`sortie runopts SCHEDULER`) or the scheduler plugin\'s metadata keys')
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

    def format(self, filter_roles: Optional[List[str]] = None) -> str:
        """The status as text: state, restarts, each role's replicas (those of
        `filter_roles` only, when given), message, error and UI URL."""
        lines = [f'AppStatus:', f'  State: {self.state}', f'  Num Restarts: {self.num_restarts}',
                 '  Roles:']
        for role in self.roles:
            if filter_roles and role.role not in filter_roles:
                continue
            for replica in role.replicas:
                lines.append(f'    {role.role}[{replica.id}] ({replica.hostname}): '
                             f'{replica.state}')
        lines += [f'  Msg: {self.msg}', f'  Structured Error Msg: {self.structured_error_msg}',
                  f'  UI URL: {self.ui_url}']
        return '\n'.join(lines)

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


ReplicaState = AppState
ALL = 'all'
MISSING = '<MISSING>'
NONE = '<NONE>'
GiB = 1024  # memMB of a gibibyte
CfgVal = Union[str, int, float, bool, List[str], Dict[str, str], None]


def get_type_name(tp) -> str:
    """The name of a run option's type as TorchX prints it: 'str', 'List[str]', ..."""
    return tp.__qualname__ if isinstance(tp, type) else str(tp).replace('typing.', '')


def make_app_handle(scheduler_backend: str, session_name: str, app_id: str) -> AppHandle:
    return f'{scheduler_backend}://{session_name}/{app_id}'


class UnknownAppException(Exception):
    def __init__(self, app_handle: AppHandle):
        super().__init__(f'unknown app {app_handle}; `sortie list` shows the apps of the store')


class UnknownSchedulerException(Exception):
    def __init__(self, scheduler_backend: str):
        super().__init__(f'unknown scheduler {scheduler_backend!r}; `sortie plugins` lists them')


class InvalidRunConfigException(Exception):
    pass


class AppDryRunInfo:
    """What a dry run returns: the scheduler's request (`request`, text)."""

    def __init__(self, request, fmt=str):
        self.request = request
        self._fmt = fmt

    def __repr__(self):
        return self._fmt(self.request)


def resource(cpu: Optional[int] = None, gpu: Optional[int] = None,
             memMB: Optional[int] = None,  # pylint: disable=invalid-name  (TorchX's name)
             h: Optional[str] = None) -> Union[Resource, NamedResource]:
    """The named resource `h` when given, else cpu/gpu/memMB with TorchX's defaults (2, 0,
    1024)."""
    if h:
        return named_resources[h]
    return Resource(cpu=cpu or 2, gpu=gpu or 0, memMB=memMB or 1024)


def get_named_resources(res: str) -> NamedResource:
    return named_resources[res]


_MOUNT_KEYS = {'type': 'type', 'destination': 'dst', 'dst': 'dst', 'target': 'dst',
               'read_only': 'readonly', 'readonly': 'readonly', 'source': 'src', 'src': 'src',
               'perm': 'perm'}


def parse_mounts(opts: List[str]) -> List[Union[BindMount, VolumeMount, DeviceMount]]:
    """Words such as ['type=bind', 'src=/data', 'dst=/data', 'readonly', 'type=volume', ...]
    into mounts; each mount starts with its type (bind, volume or device)."""
    groups: List[Dict[str, str]] = []
    for opt in opts:
        key, _, value = opt.partition('=')
        if key not in _MOUNT_KEYS:
            raise KeyError(f'unknown mount option {key!r}; expected one of {list(_MOUNT_KEYS)}')
        key = _MOUNT_KEYS[key]
        if key == 'type':
            groups.append({})
        elif not groups:
            raise KeyError('a mount starts with type=bind, type=volume or type=device')
        groups[-1][key] = value
    mounts: List[Union[BindMount, VolumeMount, DeviceMount]] = []
    for group in groups:
        kind = group.get('type')
        if kind == 'bind':
            mounts.append(BindMount(os.path.expanduser(group['src']), group['dst'],
                                    'readonly' in group))
        elif kind == 'volume':
            mounts.append(VolumeMount(group['src'], group['dst'], 'readonly' in group))
        elif kind == 'device':
            mounts.append(DeviceMount(group['src'], group.get('dst', group['src']),
                                      group.get('perm', 'rwm')))
        else:
            raise ValueError(f'unknown mount type {kind!r}; expected bind, volume or device')
    return mounts


__getattr__ = _refusal.module_getattr('torchx.specs', {
    'runopt': 'scheduler run options are declared by scheduler plugins; `sortie runopts '
              'SCHEDULER` lists them and cfg= / -cfg sets them',
    'runopts': 'scheduler run options are declared by scheduler plugins; `sortie runopts '
               'SCHEDULER` lists them and cfg= / -cfg sets them',
    'materialize_appdef': 'call the component function (it returns the AppDef); sortie '
                          'substitutes macros when the app runs',
    'torchx_run_args_from_argparse': 'run with `sortie run` or Runner.run_component',
    'torchx_run_args_from_json': 'run with `sortie run` or Runner.run_component',
    'TorchXRunArgs': 'run with `sortie run` or Runner.run_component',
})
