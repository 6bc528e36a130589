"""XManager's `xmanager.cloud` helpers that launch scripts call (`vertex`, `utils`,
`build_image`), over sortie's Vertex plugin. `from xmanager.cloud import vertex` (or utils, or
build_image) gives this module inside `sortie launch`; the names sortie cannot honour are
refused by name (docs/python.md)."""

import os
import sys
from typing import List

from sortie import _refusal
from sortie import xm_late_bindings


def get_workerpool_address(workerpool: str) -> str:
    """XManager's late binding of a Vertex worker pool's first replica, host:port
    (%objectname(workerpool0)%), resolved where the job runs (sortie.xm_late_bindings)."""
    return xm_late_bindings.workerpool_address(workerpool)


def default_steps(directory: str, use_deep_module: bool) -> List[str]:
    """Dockerfile steps that put a PythonContainer's directory (`directory`, as the build
    context names it) in the image, as sortie's docker packager writes them when
    docker_instructions is not given: its requirements.txt installed first when the launch
    script's directory has one, then the code, the working directory the project's (or
    /workdir, its parent, for deep modules)."""
    project = f'/workdir/{directory}' if use_deep_module else f'/{directory}'
    steps = ['ENV LANG=C.UTF-8'] + (['WORKDIR /workdir'] if use_deep_module else [])
    launch_dir = os.path.dirname(os.path.abspath(sys.argv[0] if sys.argv[0] else '.'))
    if os.path.isfile(os.path.join(launch_dir, 'requirements.txt')):
        steps += [f'COPY {directory}/requirements.txt {project}/requirements.txt',
                  f'RUN python -m pip install -r {project}/requirements.txt']
    steps.append(f'COPY {directory}/ {project}')
    return steps + ([] if use_deep_module else [f'WORKDIR {project}'])


__getattr__ = _refusal.module_getattr('xmanager.cloud', {
    'get_default_client': 'sortie\'s Vertex plugin makes the API calls; attach a TensorBoard '
                          'with xm_local.Vertex(tensorboard=xm_local.TensorboardCapability('
                          'name=\'projects/P/locations/L/tensorboards/ID\', '
                          'base_output_directory=\'gs://...\'))',
    'set_default_client': 'sortie\'s Vertex plugin makes the API calls',
    'Client': 'sortie\'s Vertex plugin makes the API calls',
    'build': 'experiment.package builds images with sortie\'s docker packager',
    'push': 'the vertex run option push_image_tag (or image_repo) pushes images',
    'get_master_address_port': 'read MASTER_ADDR and MASTER_PORT, which dist.spmd sets',
    'get_world_size_rank': 'read WORLD_SIZE and RANK, which dist.spmd sets',
    'create_cluster_specs': 'set TF_CONFIG per job with env_vars and ${rank0_host}',
})

# `from xmanager.cloud import vertex, utils, build_image` name this module.
vertex = utils = build_image = sys.modules[__name__]
