"""XManager's `xm_local` module on sortie: `from sortie import xm_local` in place of
`from xmanager import xm_local`. Experiments are recorded in sortie's store."""

# pylint: disable=unused-import
from sortie.xm_executors import Caip, DockerOptions, Kubernetes, Local, Vertex
from sortie.xm_experiment import create_experiment, get_experiment, list_experiments
