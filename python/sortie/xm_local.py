"""XManager's `xm_local` module on sortie: `from sortie import xm_local` in place of
`from xmanager import xm_local` (inside `sortie launch`, `from xmanager import xm_local` gives
this module). Experiments are recorded in sortie's store."""

import dataclasses

# pylint: disable=unused-import
from sortie import _refusal
from sortie.xm_executors import Caip, DockerOptions, Kubernetes, Local, Vertex
from sortie.xm_experiment import create_experiment, get_experiment, list_experiments

CaipSpec = Caip.Spec
KubernetesSpec = Kubernetes.Spec
LocalSpec = Local.Spec
VertexSpec = Vertex.Spec


@dataclasses.dataclass
class TensorboardCapability:
    """XManager's Vertex AI TensorBoard attachment: Vertex(tensorboard=...) takes it (the
    vertex run options tensorboard and base_output_dir)."""
    name: str
    base_output_directory: str


__getattr__ = _refusal.module_getattr('xmanager.xm_local', {
    'auth': 'sortie\'s Vertex plugin authenticates with Application Default Credentials '
            '(gcloud auth application-default login), see docs/vertex-scheduler.md',
    'TpuCapability': 'Kubernetes(tpu_capability=) is refused; ask for TPUs with '
                     'JobRequirements (e.g. tpu_v3=8)',
})
