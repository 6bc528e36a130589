"""XManager's JobRequirements, ResourceType, Topology and units. Names and values are checked by
the C++ launch API (JobRequirements::parse, docs/experiments.md XF-13), so a Python launch and an
experiment file accept and refuse the same things."""

import enum
import re
from typing import Iterable, Mapping, Optional, Union

vCPU = 1
KiB, MiB, GiB, TiB, PiB = (1024**power for power in range(1, 6))
KB, MB, GB, TB, PB = (1000**power for power in range(1, 6))


class ResourceType(enum.Enum):
    CPU = 'cpu'
    RAM = 'ram'
    MEMORY = 'memory'
    DISK = 'disk'
    EPHEMERAL_STORAGE = 'ephemeral_storage'
    LOCAL_GPU = 'local_gpu'
    P4 = 'p4'
    T4 = 't4'
    L4 = 'l4'
    L4_24TH = 'l4_24th'
    P100 = 'p100'
    V100 = 'v100'
    A100 = 'a100'
    A100_80GIB = 'a100_80gib'
    H100 = 'h100'
    H200 = 'h200'
    B200 = 'b200'
    TPU_V2 = 'tpu_v2'
    TPU_V3 = 'tpu_v3'
    TPU_V4 = 'tpu_v4'
    TPU_V5E = 'tpu_v5e'
    TPU_V5P = 'tpu_v5p'
    TPU_V6E = 'tpu_v6e'

    def __str__(self):
        return self.name


class ServiceTier(enum.Enum):
    """XManager's availability tiers. sortie has none: only PROD, XManager's default, is taken."""
    PROD = 200
    BATCH = 100
    FREEBIE = 25


class _SubsetOfResourceTypes(type):
    """A class whose attributes are some ResourceType members (XManager's GpuType, TpuType):
    `kind in GpuType`, `list(GpuType)`, `GpuType.T4`, `GpuType['t4']`."""

    def __iter__(cls):
        return iter(cls._members)

    def __contains__(cls, kind):
        return kind in cls._members

    def __getitem__(cls, name):
        kind = ResourceType[str(name).upper()]
        if kind not in cls._members:
            raise AttributeError(f"type object '{cls.__name__}' has no attribute '{name}'")
        return kind


def _subset(class_name: str, members: Iterable[ResourceType]) -> type:
    members = tuple(members)
    return _SubsetOfResourceTypes(class_name, (), {
        '_members': members, **{kind.name: kind for kind in members}})


GpuType = _subset('GpuType', (kind for kind in ResourceType if kind.value in (
    'p4', 't4', 'l4', 'l4_24th', 'p100', 'v100', 'a100', 'a100_80gib', 'h100', 'h200', 'b200')))
TpuType = _subset('TpuType', (kind for kind in ResourceType if kind.value.startswith('tpu_')))
AcceleratorType = _subset('AcceleratorType', (*GpuType, *TpuType))


class ResourceDict(dict):
    """ResourceType -> amount (JobRequirements.task_requirements), printed as XManager's:
    'CPU: 4, T4: 2'."""

    def __str__(self):
        return ', '.join(sorted(f'{kind}: {amount}' for kind, amount in self.items()))


class InvalidTpuTopologyError(Exception):
    """A topology that is not NxM..., optionally _twisted or _untwisted (XManager's)."""


class Topology:
    """An accelerator topology such as '2x2' or '4x4_twisted'."""

    def __init__(self, name: str):
        if not re.fullmatch(r'(\d+x?)+(_(un)?twisted)?', name):
            raise InvalidTpuTopologyError(f'Invalid TPU topology: {name}.')
        self.name = name
        self.dimensions = [int(size) for size in name.split('_')[0].split('x')]

    @property
    def chip_count(self) -> int:
        count = 1
        for size in self.dimensions:
            count *= size
        return count

    def __eq__(self, other):
        return isinstance(other, Topology) and self.name == other.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f'Topology({self.name!r})'


ResourceQuantity = Union[int, float, str, Topology]


_HOST_RESOURCES = (ResourceType.CPU, ResourceType.RAM, ResourceType.MEMORY, ResourceType.DISK,
                   ResourceType.EPHEMERAL_STORAGE)


def _type_of(resource):
    """The ResourceType of a name, or the name where sortie's XF-13 names more than the enum."""
    name = _name_of(resource)
    return ResourceType(name) if name in ResourceType._value2member_map_ else name


def _name_of(resource):
    return resource.value if isinstance(resource, ResourceType) else str(resource).lower()


def _text_of(quantity):
    if isinstance(quantity, Topology):
        return quantity.name
    if isinstance(quantity, bool):
        raise TypeError(f'expected a number or a text such as 16GiB or 2x2, got {quantity!r}')
    return str(quantity)


class JobRequirements:
    """Resources one job asks for: JobRequirements(cpu=4, ram=16 * xm.GiB, t4=2)."""

    def __init__(self, resources: Mapping[Union[ResourceType, str], ResourceQuantity] = None, *,
                 location: Optional[str] = None, accelerator: Optional[ResourceType] = None,
                 topology: Optional[Topology] = None, replicas: Optional[int] = None,
                 service_tier=None, **kw_resources):
        if service_tier not in (None, ServiceTier.PROD):
            raise ValueError(f'JobRequirements(service_tier={service_tier}): sortie has no '
                             'service tiers; drop it (every job runs as ServiceTier.PROD)')
        self.service_tier = ServiceTier.PROD
        self.entries = [(_name_of(name), _text_of(value))
                        for name, value in {**(resources or {}), **kw_resources}.items()]
        if accelerator is not None:
            self.entries.append((_name_of(accelerator), _text_of(topology or 1)))
        elif topology is not None:
            raise ValueError('JobRequirements(topology=...) needs accelerator=... too')
        if replicas is not None:
            self.entries.append(('replicas', str(replicas)))
        if location is not None:
            self.entries.append(('location', location))
        self.location = location
        self.replicas = replicas
        # XManager's typed view: each ResourceType asked for with its amount as given, and the
        # one accelerator (a GPU or TPU type), if any.
        self.task_requirements = ResourceDict()
        for name, value in {**(resources or {}), **kw_resources}.items():
            self.task_requirements[_type_of(name)] = value
        if accelerator is not None:
            self.task_requirements[_type_of(accelerator)] = topology or 1
        self.topology = topology
        self.accelerator = next((kind for kind in self.task_requirements
                                 if isinstance(kind, ResourceType)
                                 and kind not in _HOST_RESOURCES), None)

    def __repr__(self):
        return f'JobRequirements({dict(self.entries)!r})'
