"""XManager's executable specs, the shorteners that make Packageables of them, and the packaged
Executable. A spec becomes a plain dict for the compiled module (sortie/xm.hpp's structs)."""

import dataclasses
from typing import List, Optional, Sequence, Union


def _refuse_dependencies(kind, dependencies):
    if dependencies:
        raise ValueError(f'{kind}(dependencies=...): sortie packages one target per executable '
                         'and cannot add dependencies; package them as executables of their own')


@dataclasses.dataclass(frozen=True)
class ModuleName:
    """Runs `python -m module_name`."""
    module_name: str


@dataclasses.dataclass(frozen=True)
class CommandList:
    """Runs these commands in order ("$@" is appended to the last one unless present)."""
    commands: List[str]


@dataclasses.dataclass(frozen=True)
class Binary:
    path: str
    dependencies: Sequence[object] = ()

    def spec(self):
        _refuse_dependencies('Binary', self.dependencies)
        return {'kind': 'binary', 'path': self.path}


@dataclasses.dataclass(frozen=True)
class BazelBinary:
    label: str
    dependencies: Sequence[object] = ()
    bazel_args: Sequence[str] = ()

    def spec(self):
        _refuse_dependencies('BazelBinary', self.dependencies)
        return {'kind': 'bazel_binary', 'label': self.label, 'bazel_args': list(self.bazel_args)}


@dataclasses.dataclass(frozen=True)
class Container:
    image_path: str

    def spec(self):
        return {'kind': 'container', 'image_path': self.image_path}


@dataclasses.dataclass(frozen=True)
class BazelContainer:
    label: str
    bazel_args: Sequence[str] = ()

    def spec(self):
        return {'kind': 'bazel_container', 'label': self.label, 'bazel_args': list(self.bazel_args)}


@dataclasses.dataclass(frozen=True)
class PythonContainer:
    entrypoint: Union[ModuleName, CommandList]
    path: str = '.'
    base_image: Optional[str] = None
    docker_instructions: Optional[List[str]] = None
    use_deep_module: bool = False

    def spec(self):
        spec = {'kind': 'python_container', 'path': self.path, 'base_image': self.base_image,
                'docker_instructions': self.docker_instructions,
                'use_deep_module': self.use_deep_module}
        if isinstance(self.entrypoint, ModuleName):
            spec['module'] = self.entrypoint.module_name
        elif isinstance(self.entrypoint, CommandList):
            spec['commands'] = list(self.entrypoint.commands)
        else:
            raise TypeError('PythonContainer.entrypoint must be xm.ModuleName or xm.CommandList, '
                            f'got {self.entrypoint!r}')
        return spec


@dataclasses.dataclass(frozen=True)
class Dockerfile:
    path: str = '.'
    dockerfile: Optional[str] = None

    def spec(self):
        return {'kind': 'dockerfile', 'path': self.path, 'dockerfile': self.dockerfile}


ExecutableSpec = Union[Binary, BazelBinary, Container, BazelContainer, PythonContainer, Dockerfile]


class Executable:
    """A packaged executable (what Experiment.package returns); wraps the launch API's, with the
    run options its Packageable's executor spec asks of the jobs that run it."""

    def __init__(self, packaged, run_options=None):
        self._packaged = packaged
        self.run_options = dict(run_options or {})

    @property
    def name(self):
        return self._packaged.name

    def __repr__(self):
        return f'Executable(name={self.name!r}, kind={self._packaged.kind!r})'
