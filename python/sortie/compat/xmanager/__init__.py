"""sortie's stand-in for the xmanager package, found only where the sortie-compat path is on the
search path: its modules are sortie's (sortie/compat_path.py, docs/python.md). As XManager's,
it defines the --xm_* absl flags (sortie.xm_flags) where absl is installed (python3-absl); a
script without absl has no absl flags to parse."""
import importlib.util

from sortie import compat_path

if importlib.util.find_spec('absl') is not None:
    from sortie import xm_flags  # pylint: disable=unused-import  (defines the flags)

compat_path.install()
