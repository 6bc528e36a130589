"""TorchX's `torchx.components.dist`: distributed training apps (docs/components.md)."""

from typing import Dict, List, Optional

from sortie import _refusal
from sortie import specs
from sortie.components import component_app


def ddp(*script_args: str, script: Optional[str] = None, m: Optional[str] = None,
        image: str = '.', h: Optional[str] = None, cpu: int = 2, gpu: int = 0,
        memMB: int = 1024,  # pylint: disable=invalid-name  (TorchX's name)
        j: str = '1x2', env: Optional[Dict[str, str]] = None, max_retries: int = 0,
        max_restarts: Optional[int] = None, rdzv_port: Optional[int] = None,
        rdzv_backend: str = 'c10d', tee: int = 1, debug: bool = False,
        mounts: Optional[List[str]] = None, name: str = '/') -> specs.AppDef:
    """A PyTorch script (or module, `m`) run by torchrun on `j` = [MIN:]NNODESxNPROC_PER_NODE
    processes with a c10d rendezvous on the rank-0 host, as `sortie run dist.ddp`. `rdzv_port`
    None: a port that no other live app on the host holds (`${free_port}`). `mounts` as in
    TorchX: ['type=bind', 'src=/data', 'dst=/data', 'readonly', ...]. `name` as TorchX's,
    [EXPERIMENT]/RUN or RUN: RUN names the app (default: the script's or module's name); an
    EXPERIMENT part is refused, since sortie has no TorchX tracker to give it to."""
    experiment, _, run = name.rpartition('/')
    if experiment:
        raise _refusal.refusal(f'dist.ddp(name={name!r})', 'sortie does not track TorchX '
                               'experiments; give the run name alone (name=RUN or /RUN) and '
                               'group runs with an xm experiment')
    app = component_app('dist.ddp', {
        'script': script, 'm': m, 'image': image, 'h': h, 'cpu': cpu, 'gpu': gpu,
        'memMB': memMB, 'j': j, 'env': env, 'max_retries': max_retries,
        'max_restarts': max_restarts, 'rdzv_port': rdzv_port, 'rdzv_backend': rdzv_backend,
        'tee': tee, 'debug': debug, 'mounts': mounts}, script_args)
    if run:
        app.name = run
    return app


def spmd(*command: str, j: int = 2, master_port: Optional[int] = None, image: str = '.',
         max_retries: int = 0, h: Optional[str] = None) -> specs.AppDef:
    """One command on `j` replicas with RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT set, as
    `sortie run dist.spmd`; for programs that are not torchrun scripts."""
    return component_app('dist.spmd', {
        'j': j, 'master_port': master_port, 'image': image, 'max_retries': max_retries,
        'h': h}, command)
