"""TorchX's `torchx.components` on sortie: functions that build a `specs.AppDef` from the
builtin components (`sortie builtins`, docs/components.md), so that
`from sortie.components.dist import ddp` replaces `from torchx.components.dist import ddp`.
The AppDef is made by the same code as `sortie run COMPONENT ...`: one definition of each."""

import json
from typing import Any, Dict, Sequence

from sortie import _sortie
from sortie import specs


def _word(value: Any) -> str:
    if isinstance(value, dict):
        return ','.join(f'{key}={item}' for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ','.join(str(item) for item in value)
    return str(value)


def component_app(component: str, options: Dict[str, Any],
                  positional: Sequence[str] = ()) -> specs.AppDef:
    """The AppDef of `sortie run COMPONENT --NAME VALUE ... -- POSITIONAL...`. Options that are
    None are left out (the component's default applies); True booleans are bare flags."""
    words = []
    for name, value in options.items():
        if value is None or value is False:
            continue
        flag = ('-' if len(name) == 1 else '--') + name
        words += [flag] if value is True else [flag, _word(value)]
    words += ['--', *[str(word) for word in positional]]
    return specs.app_def_of(json.loads(_sortie.Runner('').app_json(component, words)))
