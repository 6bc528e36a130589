"""sortie's stand-in for the torchx package, found only where the sortie-compat path is on the
search path: its modules are sortie's (sortie/compat_path.py, docs/python.md)."""
from sortie import compat_path

compat_path.install()
