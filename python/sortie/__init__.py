"""sortie's Python API: XManager's launch API (sortie.xm, sortie.xm_local) and TorchX's specs and
runner (sortie.specs, sortie.runner), over the shared launch library. See docs/python.md."""

# What reading a name of XManager's or TorchX's API that sortie refuses raises.
from sortie._refusal import UnsupportedNameError  # pylint: disable=unused-import

import os as _os


def _restore_users_pythonpath():
    """`sortie launch FILE.py` (and `sortie run FILE.py:FUNCTION`) start this interpreter with
    sortie's compat packages first on PYTHONPATH and the user's own PYTHONPATH in
    SORTIE_USER_PYTHONPATH. The interpreter has read its path by now; the user's is put back
    for the processes it starts, so a unit imports the real torchx, not sortie's stand-in."""
    users = _os.environ.pop('SORTIE_USER_PYTHONPATH', None)
    if users:
        _os.environ['PYTHONPATH'] = users
    elif users is not None:
        _os.environ.pop('PYTHONPATH', None)


_restore_users_pythonpath()
