"""XManager's `xmanager.contrib.flow`: a graph of jobs, each launched as a work unit of its own
once the jobs it depends on have succeeded. XManager runs the graph in a parameter_controller
job, which needs its hosted database; sortie runs it in the launch script:
experiment.add(flow.executable_graph(...)) returns when the graph has run, with the work units
it launched by job name."""

import logging
import time
from typing import Any, Dict, Mapping, Optional, Sequence

from sortie import _refusal
from sortie import xm_experiment

# How often the statuses of the jobs a waiting job depends on are read.
_POLL_SECONDS = 0.5


class StopControllerError(Exception):
    """A job failed and terminate_on_failure stopped the graph."""


class _Graph(xm_experiment.LaunchController):

    def __init__(self, jobs, jobs_deps, jobs_args, terminate_on_failure):
        self._jobs = jobs
        self._deps = jobs_deps
        self._args = jobs_args
        self._terminate_on_failure = terminate_on_failure

    def run(self, experiment) -> Dict[str, Any]:
        launched = {}  # job name -> WorkUnit
        skipped = set()  # jobs not launched: one they depend on failed
        pending = list(self._jobs)
        while pending:
            progressed = False
            for name in list(pending):
                ended = [launched[dep].get_status() for dep in self._deps[name]
                         if dep in launched]
                if any(dep in skipped for dep in self._deps[name]) or \
                        any(status.is_failed for status in ended):
                    if self._terminate_on_failure:
                        logging.info('flow: a job %s depends on failed; stopping', name)
                        return launched
                    skipped.add(name)
                elif len(ended) == len(self._deps[name]) and \
                        all(status.is_completed for status in ended):
                    launched[name] = experiment.add(self._jobs[name],
                                                    args=self._args.get(name))
                else:
                    continue
                pending.remove(name)
                progressed = True
            if pending and not progressed:
                time.sleep(_POLL_SECONDS)
        return launched


def executable_graph(*, jobs: Mapping[str, Any], jobs_deps: Mapping[str, Sequence[str]],
                     jobs_args: Optional[Mapping[str, Optional[Mapping[str, Any]]]] = None,
                     controller=None, terminate_on_failure: bool = True) -> _Graph:
    """The graph for experiment.add(): `jobs` by name, `jobs_deps` the names each waits for
    (a job left out has none), `jobs_args` each one's args. With terminate_on_failure, a failed
    job stops the graph; without it, only the jobs that depend on it are not launched."""
    if controller is not None:
        raise _refusal.refusal('flow.executable_graph(controller=...)',
                               'sortie runs the graph in the launch script, not in a '
                               'parameter_controller job; drop controller')
    deps = {name: list(jobs_deps.get(name, ())) for name in jobs}
    unknown = sorted({dep for name, names in jobs_deps.items() for dep in [name, *names]} -
                     set(jobs))
    if unknown:
        raise ValueError(f'Invalid `jobs_deps`: Some dependencies are not present in the '
                         f'`jobs=`: {unknown}')
    ordered, remaining = [], dict(deps)
    while remaining:
        ready = [name for name, names in remaining.items() if set(names) <= set(ordered)]
        if not ready:
            raise ValueError(f'Invalid `jobs_deps`: the jobs {sorted(remaining)} depend on each '
                             'other in a cycle')
        ordered += ready
        for name in ready:
            del remaining[name]
    return _Graph(dict(jobs), deps, dict(jobs_args or {}), terminate_on_failure)
