"""TorchX's `torchx.components.utils`: small utility apps. echo, sh, python and binary are the
builtins of those names (docs/components.md); TorchX's parameters the builtin lacks (cpu, gpu,
memMB, mounts, entrypoint, name) are applied to the AppDef it returns. touch and copy run
coreutils in the image; booth is refused by name."""

from typing import Dict, List, Optional

from sortie import _refusal
from sortie import specs
from sortie.components import component_app

_IMAGE = '.'


def _with_host(app: specs.AppDef, cpu: int, gpu: int, memMB: int,  # pylint: disable=invalid-name
               h: Optional[str], mounts: Optional[List[str]] = None) -> specs.AppDef:
    for role in app.roles:
        role.resource = specs.resource(cpu=cpu, gpu=gpu, memMB=memMB, h=h)
        role.mounts = specs.parse_mounts(mounts) if mounts else []
    return app


def _one_role(name: str, entrypoint: str, args: List[str], image: str) -> specs.AppDef:
    return specs.AppDef(name, [specs.Role(name, image=image, entrypoint=entrypoint, args=args,
                                          resource=specs.resource(cpu=1, gpu=0, memMB=1024))])


def echo(msg: str = 'hello world', image: str = _IMAGE, num_replicas: int = 1) -> specs.AppDef:
    """Echoes `msg` on every replica."""
    return component_app('utils.echo', {'msg': msg, 'image': image,
                                        'num_replicas': num_replicas})


def touch(file: str, image: str = _IMAGE) -> specs.AppDef:
    """Creates `file` (an empty file) where the app runs."""
    return _one_role('touch', 'touch', [file], image)


def copy(src: str, dst: str, image: str = _IMAGE) -> specs.AppDef:
    """Copies `src` to `dst` where the app runs (cp -r; local paths, not fsspec URLs)."""
    for path in (src, dst):
        if '://' in path:
            raise _refusal.refusal(f'utils.copy({path!r})', 'sortie copies files with cp in '
                                   'the image; copy URLs with the storage\'s own tool '
                                   '(gsutil, aws s3 cp) through utils.sh')
    return _one_role('copy', 'cp', ['-r', src, dst], image)


def sh(*args: str, image: str = _IMAGE, num_replicas: int = 1, cpu: int = 1, gpu: int = 0,
       memMB: int = 1024, h: Optional[str] = None,  # pylint: disable=invalid-name
       env: Optional[Dict[str, str]] = None, max_retries: int = 0,
       mounts: Optional[List[str]] = None, entrypoint: Optional[str] = None) -> specs.AppDef:
    """`sh -c 'ARGS...'` on num_replicas replicas (entrypoint replaces sh)."""
    app = component_app('utils.sh', {'image': image, 'num_replicas': num_replicas, 'env': env,
                                     'max_retries': max_retries}, args)
    if entrypoint:
        for role in app.roles:
            role.entrypoint = entrypoint
    return _with_host(app, cpu, gpu, memMB, h, mounts)


def python(*args: str, m: Optional[str] = None, c: Optional[str] = None,
           script: Optional[str] = None, image: str = _IMAGE,
           name: str = 'torchx_utils_python', cpu: int = 1, gpu: int = 0,
           memMB: int = 1024, h: Optional[str] = None,  # pylint: disable=invalid-name
           num_replicas: int = 1) -> specs.AppDef:
    """python3 with a module (-m), code (-c) or a script, on num_replicas replicas."""
    app = component_app('utils.python', {'m': m, 'c': c, 'script': script, 'image': image,
                                         'num_replicas': num_replicas}, args)
    app.name = name
    return _with_host(app, cpu, gpu, memMB, h)


def binary(*args: str, entrypoint: str, name: str = 'torchx_utils_binary',
           num_replicas: int = 1, cpu: int = 1, gpu: int = 0,
           memMB: int = 1024, h: Optional[str] = None) -> specs.AppDef:  # pylint: disable=invalid-name
    """A program with arguments, no shell."""
    app = component_app('utils.binary', {'entrypoint': entrypoint,
                                         'num_replicas': num_replicas}, args)
    app.name = name
    return _with_host(app, cpu, gpu, memMB, h)


booth = _refusal.refused_method(
    'utils.booth', 'it evaluates Ax trials through TorchX\'s tracker; run the trial script '
    'with utils.python and sweep with experiment.add(job, args=[...])')
