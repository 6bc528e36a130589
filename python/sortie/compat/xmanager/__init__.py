"""sortie's stand-in for the xmanager package, found only where the sortie-compat path is on the
search path: its modules are sortie's (sortie/compat_path.py, docs/python.md). As XManager's,
it defines the --xm_* absl flags (sortie.xm_flags)."""
from sortie import compat_path
from sortie import xm_flags  # pylint: disable=unused-import  (defines the flags)

compat_path.install()
