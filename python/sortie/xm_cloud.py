"""XManager's `xmanager.cloud` helpers that launch scripts call (`vertex`, `utils`,
`build_image`), over sortie's Vertex plugin. `from xmanager.cloud import vertex` (or utils, or
build_image) gives this module inside `sortie launch`; the names sortie cannot honour are
refused by name (docs/python.md)."""

import sys

from sortie import _refusal
from sortie import xm_late_bindings


def get_workerpool_address(workerpool: str) -> str:
    """XManager's late binding of a Vertex worker pool's first replica, host:port
    (%objectname(workerpool0)%), resolved where the job runs (sortie.xm_late_bindings)."""
    return xm_late_bindings.workerpool_address(workerpool)


__getattr__ = _refusal.module_getattr('xmanager.cloud', {
    'get_default_client': 'sortie\'s Vertex plugin makes the API calls; attach a TensorBoard '
                          'with xm_local.Vertex(tensorboard=xm_local.TensorboardCapability('
                          'name=\'projects/P/locations/L/tensorboards/ID\', '
                          'base_output_directory=\'gs://...\'))',
    'set_default_client': 'sortie\'s Vertex plugin makes the API calls',
    'Client': 'sortie\'s Vertex plugin makes the API calls',
    'default_steps': 'sortie\'s docker packager writes the Dockerfile of a PythonContainer; '
                     'give your own steps with xm.Dockerfile',
    'build': 'experiment.package builds images with sortie\'s docker packager',
    'push': 'the vertex run option push_image_tag (or image_repo) pushes images',
    'get_master_address_port': 'read MASTER_ADDR and MASTER_PORT, which dist.spmd sets',
    'get_world_size_rank': 'read WORLD_SIZE and RANK, which dist.spmd sets',
    'create_cluster_specs': 'set TF_CONFIG per job with env_vars and ${rank0_host}',
})

# `from xmanager.cloud import vertex, utils, build_image` name this module.
vertex = utils = build_image = sys.modules[__name__]
