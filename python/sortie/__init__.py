"""sortie's Python API: XManager's launch API (sortie.xm, sortie.xm_local) and TorchX's specs and
runner (sortie.specs, sortie.runner), over the shared launch library. See docs/python.md."""

# What reading a name of XManager's or TorchX's API that sortie refuses raises.
from sortie._refusal import UnsupportedNameError  # pylint: disable=unused-import
