"""Measurements from a Python job, with no sortie code in the job's process beyond this module
(docs/experiments.md, "Measurements"): `sortie.track.log(step=10, loss=0.53, acc=0.71)`.

Standard library only, so a training script can import it wherever sortie is installed."""

import json
import math
import os
import sys

METRICS_FILE_ENV = 'SORTIE_METRICS_FILE'


def log(step=None, **metrics):
    """Reports `metrics` (names to numbers) at `step`: one JSON line appended to the file
    $SORTIE_METRICS_FILE names, which the scheduler serves to sortie; where the variable is not
    set (a scheduler that does not serve the file, or outside sortie), one `step=10 loss=0.53`
    line on stdout instead, which sortie reads from a role that sets SORTIE_METRICS_PATTERN.
    Values that are not finite numbers are left out; a name that is not a word is a ValueError."""
    values = {}
    for name, value in metrics.items():
        if not name.isidentifier():
            raise ValueError(f'sortie.track.log: {name!r} is not a word; use letters, digits '
                             'and _')
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            value = float(value)  # a tensor's item, numpy's scalars; raises for text
        if math.isfinite(value):
            values[name] = value
    line = dict({} if step is None else {'step': int(step)}, **values)
    path = os.environ.get(METRICS_FILE_ENV)
    if path:
        with open(path, 'a', encoding='utf-8') as metrics_file:
            metrics_file.write(json.dumps(line) + '\n')
    else:
        print(' '.join(f'{name}={value}' for name, value in line.items()), flush=True)
