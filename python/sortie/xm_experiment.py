"""XManager's Experiment and WorkUnit over sortie's launch API (sortie/xm.hpp). Everything is
recorded in sortie's store, so `sortie experiments list|show|cancel` sees what Python launched.

There is no event loop of sortie's own (XManager runs one, so a plain `with create_experiment()`
fails where a loop already runs, as in Jupyter): calls block in the compiled module with the GIL
released, and waits wake every _blocking.WAKE_SECONDS so Ctrl-C raises KeyboardInterrupt."""

import copy
import dataclasses
import functools
import getpass
import json
import os
import sys
import time

from sortie import _blocking
from sortie import _refusal
from sortie import _sortie
from sortie import xm_args
from sortie import xm_executables as executables
from sortie import xm_jobs
from sortie import xm_stream_output

# `sortie launch --dryrun FILE.py` sets it: add() prints each scheduler's request, submits nothing.
DRYRUN_ENV = 'SORTIE_LAUNCH_DRYRUN'
_ACTIVE = ('PENDING', 'RUNNING')


class ExperimentUnitError(RuntimeError):
    pass


class ExperimentUnitFailedError(ExperimentUnitError):
    """A work unit ended FAILED or CANCELLED (raised by wait_until_complete)."""


@dataclasses.dataclass(frozen=True)
class ExperimentUnitStatus:
    """A work unit's state: PENDING, RUNNING, SUCCEEDED, FAILED, CANCELLED or UNKNOWN."""
    state: str

    @property
    def is_active(self):
        return self.state in _ACTIVE

    @property
    def is_completed(self):
        return self.state == 'SUCCEEDED'

    @property
    def is_failed(self):
        return self.state in ('FAILED', 'CANCELLED')

    @property
    def message(self):
        return self.state


def _apply_args(job, args):
    """XManager's add(job, args): {'args': ..., 'env_vars': ...} for a Job, {member: ...} for a
    JobGroup (recursively); applied to a copy."""
    if not args:
        return job
    if isinstance(job, xm_jobs.Job):
        unknown = set(args) - {'args', 'env_vars'}
        if unknown:
            raise ValueError(f'Arguments {sorted(unknown)!r} are not supported by xm.Job; only '
                             "'args' and 'env_vars' are")
        job = copy.copy(job)
        if 'args' in args:
            job.args = xm_args.merge_args(job.args, args['args'])
        job.env_vars = {**job.env_vars, **args.get('env_vars', {})}
        return job
    unknown = set(args) - set(job.jobs)
    if unknown:
        raise ValueError(f'Arguments {sorted(unknown)!r} name no job of the xm.JobGroup; its jobs '
                         f'are {sorted(job.jobs)!r}')
    group = copy.copy(job)
    group.jobs = {name: _apply_args(member, args.get(name, {})) for name, member in job.jobs.items()}
    return group


class WorkUnit:
    """One work unit: its jobs' handles, status, wait and stop. Awaiting it gives itself, so
    `await experiment.add(job)` works as in XManager."""

    def __init__(self, experiment, unit):
        self._experiment = experiment
        self.experiment_id = unit['experiment_id']
        self.work_unit_id = unit['id']
        # 1, then one more per rerun(); the apps of the attempts before stay on record.
        self.attempt = unit['attempt']
        self.earlier_handles = list(unit['earlier_apps'])
        self.handles = sorted({job['app'] for job in unit['jobs'] if job['app']})
        # The jobs of a group share one app, so one request (in order, each once).
        self.dryrun_requests = list(dict.fromkeys(
            job['dryrun_json'] for job in unit['jobs'] if job['dryrun_json']))

    @property
    def experiment_unit_name(self):
        return f'{self.experiment_id}_{self.work_unit_id}'

    def get_full_job_name(self, job_name: str) -> str:
        """XManager's name of a job of this unit: EXPERIMENT_UNIT_JOB."""
        return f'{self.experiment_unit_name}_{job_name}'

    @property
    def context(self):
        raise _refusal.refusal('WorkUnit.context', _UNIT_CONTEXT)

    def __await__(self):
        return self
        yield  # unreachable: makes __await__ a generator that finishes at once

    def _states(self):
        runner = self._experiment._runner
        states = []
        for handle in self.handles:
            status = runner.status(handle)
            states.append(status['state'] if status else 'UNKNOWN')
        return states

    def measurements(self):
        """What its jobs measured, one summary per key (docs/experiments.md XF-37): {key:
        {'last', 'last_step', 'min', 'max', 'count', 'app', 'role', 'replica', 'rank'}}, each
        key read from its first job (by handle) that reports it, lowest replica first, rank 0's
        lines (else those of no rank) of that replica; as `sortie experiments show --json` gives
        them."""
        found = {}
        for handle in self.handles:
            for series in self._experiment._runner.metrics(handle, ''):
                if series['rank'] not in (None, 0):
                    continue
                held = found.get(series['key'])
                same_replica = held is not None and (held['app'], held['role'], held['replica']) \
                    == (handle, series['role'], series['replica'])
                if held is None or (same_replica and held['rank'] is None):
                    found[series['key']] = {
                        'last': series['last']['value'], 'last_step': series['last']['step'],
                        'min': series['min']['value'], 'max': series['max']['value'],
                        'count': series['count'], 'app': handle, 'role': series['role'],
                        'replica': series['replica'], 'rank': series['rank']}
        return found

    def get_status(self):
        states = self._states()
        for state in ('RUNNING', 'PENDING', 'SUBMITTED', 'UNKNOWN', 'FAILED', 'CANCELLED'):
            if state in states:
                return ExperimentUnitStatus('PENDING' if state == 'SUBMITTED' else state)
        return ExperimentUnitStatus('SUCCEEDED' if states else 'UNKNOWN')

    def _wait(self, deadline):
        runner = self._experiment._runner
        wake_ms = int(_blocking.WAKE_SECONDS * 1000)
        for handle in self.handles:
            # Returning to Python between waits runs its signal handlers (Ctrl-C).
            while not _terminal(runner.wait(handle, wake_ms)['state']):
                if time.monotonic() >= deadline.at:
                    raise TimeoutError(
                        f'work unit {self.experiment_unit_name} still runs after '
                        f'{deadline.what}={deadline.seconds:g} s; its jobs keep running '
                        f'(`sortie experiments cancel {self.experiment_id}` stops them)')
        status = self.get_status()
        if status.is_failed:
            # Why, as the scheduler said it (a container that could not start, an exit code).
            reasons = [app['message'] for app in map(runner.status, self.handles)
                       if app and app['state'] in ('FAILED', 'CANCELLED') and app['message']]
            raise ExperimentUnitFailedError(
                f'work unit {self.experiment_unit_name} ended {status.state}'
                f'{": " + "; ".join(reasons) if reasons else ""} (see `sortie experiments show '
                f'{self.experiment_id}`)')
        return status

    def wait_until_complete(self, timeout: float = _blocking.DEFAULT_WAIT_SECONDS):
        """Blocks until every job is done, at most `timeout` seconds (default a day; then
        TimeoutError, the jobs keep running); raises ExperimentUnitFailedError if one failed or
        was cancelled. In a coroutine, returns an awaitable doing the wait in a worker thread."""
        deadline = _Deadline(timeout, 'timeout')
        return _blocking.blocking_or_awaitable(lambda: (self._wait(deadline), self)[1])

    def stop(self, *, mark_as_failed=False, mark_as_completed=False, message=None):
        if mark_as_failed or mark_as_completed:
            raise ValueError('WorkUnit.stop(mark_as_failed/mark_as_completed=...): sortie records '
                             'the state its scheduler reports; stop() cancels the jobs')
        for handle in self.handles:
            self._experiment._runner.cancel(handle, message or 'stopped from Python')

    def rerun(self):
        """Runs this work unit again, as recorded, as its next attempt (docs/experiments.md
        XF-34); returns the WorkUnit of the new attempt. Refused (ValueError) while it runs."""
        return self._experiment.rerun(units=[self.work_unit_id])[0]

    def __repr__(self):
        return f'WorkUnit({self.experiment_unit_name})'


_UNIT_CONTEXT = ('sortie keeps notes and tags per experiment: use experiment.context.annotations '
                 '(`sortie experiments note|tag`); a unit\'s own record is `sortie experiments '
                 'show ID --unit N`')


class _GeneratedUnit:
    """The work unit a job generator is given: its id is the one the unit will get, and add()
    collects the generator's jobs (launched when the generator returns)."""

    def __init__(self, experiment, work_unit_id):
        self.experiment_id = experiment.experiment_id
        self.work_unit_id = work_unit_id
        self._jobs = {}

    @property
    def context(self):
        raise _refusal.refusal('WorkUnit.context', _UNIT_CONTEXT)

    @property
    def experiment_unit_name(self):
        return f'{self.experiment_id}_{self.work_unit_id}'

    def get_full_job_name(self, job_name: str) -> str:
        return f'{self.experiment_unit_name}_{job_name}'

    def add(self, job, args=None):
        """Adds a Job or JobGroup to this work unit (jobs keep their names; unnamed ones are
        job0, job1, ...)."""
        job = _apply_args(job, args)
        members = job.jobs if isinstance(job, xm_jobs.JobGroup) else {
            job.name or f'job{len(self._jobs)}': job}
        for name, member in members.items():
            if name in self._jobs:
                raise ValueError(f'work_unit.add: a job named {name!r} is already in this '
                                 'work unit')
            self._jobs[name] = member
        return _blocking.Done(None)

    def job(self):
        if not self._jobs:
            raise ValueError(f'the job generator added no job to work unit {self.work_unit_id}')
        if len(self._jobs) == 1:
            return next(iter(self._jobs.values()))
        return xm_jobs.JobGroup(**self._jobs)


class AuxiliaryUnitJob:
    """XManager's auxiliary unit: a helper job (a TensorBoard, say) that serves the work units
    of its experiment. experiment.add(AuxiliaryUnitJob(job)) launches it; sortie's store knows
    only work units, so it is recorded as one of its own (its id, `sortie experiments show`),
    and where it runs locally, leaving the experiment's `with` block stops it
    termination_delay_secs after the local work units have ended, as XManager's local
    experiments do."""

    def __init__(self, job, *, importance=None, termination_delay_secs: float = 600):
        if importance is not None:
            raise _refusal.refusal('AuxiliaryUnitJob(importance=...)',
                                   'sortie schedules without importance; drop it')
        if termination_delay_secs < 0:
            raise ValueError('AuxiliaryUnitJob(termination_delay_secs=...) must not be negative')
        self.job = job
        self.termination_delay_secs = termination_delay_secs


class LaunchController:
    """What experiment.add(controller) runs in the launch script instead of adding one work
    unit: run(experiment) adds the work units itself (xmanager.contrib.flow's graph)."""

    def run(self, experiment):
        raise NotImplementedError


class _Deadline:
    """When a wait runs out, and the parameter that set it (for the TimeoutError)."""

    def __init__(self, seconds, what):
        self.seconds = seconds
        self.what = what
        self.at = time.monotonic() + seconds


def _terminal(state):
    return state not in ('UNSUBMITTED', 'SUBMITTED', 'PENDING', 'RUNNING')


class ExperimentAnnotations:
    """What a researcher writes on an experiment, XManager's names (`context.annotations`):
    notes and tags, kept in sortie's store, so `sortie experiments show`, `experiments list
    --tag` and the dashboard show them, and what they write shows here."""

    def __init__(self, experiment):
        self._experiment = experiment

    @property
    def title(self) -> str:
        return self._experiment.experiment_title

    def set_title(self, title: str) -> None:
        raise NotImplementedError(
            f'annotations.set_title({title!r}): sortie keeps the title given to '
            'create_experiment; put what changed in set_notes() or add_tags()')

    @property
    def notes(self) -> str:
        return self._experiment._native.notes()

    def set_notes(self, notes: str) -> None:
        self._experiment._native.set_notes(_text('notes', notes))

    @property
    def tags(self):
        return self._experiment._native.tags()

    def add_tags(self, *tags) -> None:
        self._experiment._native.add_tags(_tag_list(tags))

    def remove_tags(self, *tags) -> None:
        self._experiment._native.remove_tags(_tag_list(tags))

    def set_tags(self, tags) -> None:
        wanted = _tag_list((tags,))
        self._experiment._native.add_tags(wanted)
        self._experiment._native.remove_tags([tag for tag in self.tags if tag not in wanted])


def _text(what, value):
    if not isinstance(value, str):
        raise TypeError(f'{what}: expected a str, got {type(value).__name__}')
    return value


def _tag_list(tags):
    """add_tags('a', 'b') and add_tags(['a', 'b']) (the hosted XManager API's form) alike."""
    if len(tags) == 1 and not isinstance(tags[0], str):
        tags = tuple(tags[0])
    return [_text('tag', tag) for tag in tags]


class ExperimentContext:
    """XManager's MetadataContext: who created the experiment and its annotations."""

    def __init__(self, experiment):
        self.creator = getpass.getuser()
        self.annotations = ExperimentAnnotations(experiment)


class Experiment:
    """An XManager experiment: `with create_experiment(title) as experiment:` (or `async with`);
    package(), add(), work_units. Leaving the `with` block waits for the local jobs, as
    xm_local does; a block left by an exception does not wait."""

    def __init__(self, native, session):
        self._native = native
        self._runner = _sortie.Runner(session)
        self._units = {}
        self._local_units = []
        # (WorkUnit, termination_delay_secs) of the local auxiliary units (AuxiliaryUnitJob).
        self._local_auxiliary_units = []
        self._local_wait_timeout = _blocking.DEFAULT_WAIT_SECONDS  # create_experiment's
        self._dry_run = bool(os.environ.get(DRYRUN_ENV))
        self._output_streams = xm_stream_output.OutputStreams(session)

    @property
    def experiment_id(self) -> int:
        return self._native.id

    @property
    def experiment_title(self) -> str:
        return self._native.title

    @property
    def context(self) -> ExperimentContext:
        return ExperimentContext(self)

    # The hosted XManager API's spellings of the same annotations.
    def set_notes(self, notes: str) -> None:
        self.context.annotations.set_notes(notes)

    def add_tags(self, *tags) -> None:
        self.context.annotations.add_tags(*tags)

    def remove_tags(self, *tags) -> None:
        self.context.annotations.remove_tags(*tags)

    def set_tags(self, tags) -> None:
        self.context.annotations.set_tags(tags)

    def code_record(self) -> dict:
        """What the launch ran (docs/experiments.md, "What each unit ran"): the command line,
        the launcher script's text and the git commit, branch and uncommitted diff of its
        directory; {} for an experiment recorded before sortie kept it."""
        text = self._native.code_record()
        return json.loads(text) if text else {}

    @property
    def work_unit_count(self) -> int:
        return len(self.work_units)

    @property
    def work_units(self):
        """{work unit id: WorkUnit}, the ones added here and any recorded before (get_experiment)."""
        if not self._dry_run:
            for unit in self._native.work_units():
                self._units.setdefault(unit['id'], WorkUnit(self, unit))
        return dict(self._units)

    def rerun(self, failed=False, cancelled=False, units=None):
        """Runs recorded work units again, each as its next attempt with its recorded args, env
        and executables (docs/experiments.md XF-34): those that FAILED (`failed`), were CANCELLED
        (`cancelled`) or are listed by id (`units`), batched per scheduler (one Slurm job array).
        Returns the new attempts' WorkUnits, which work_units gives from then on. A unit still
        running or a selection of none raise ValueError; an unknown id, or a unit another
        command is rerunning at the same moment, sortie.Error."""
        if self._dry_run:
            raise ValueError('Experiment.rerun: a dry run records no work units to run again')
        rerun = [WorkUnit(self, unit) for unit in self._native.rerun(
            failed=bool(failed), cancelled=bool(cancelled), units=list(units or []))]
        by_id = {work_unit.work_unit_id: work_unit for work_unit in rerun}
        self._units.update(by_id)
        # Leaving the `with` block waits for the latest attempts, not the ones that ended.
        self._local_units = [by_id.get(unit.work_unit_id, unit) for unit in self._local_units]
        return rerun

    def package(self, packageables=()):
        packageables = list(packageables)
        # --xm_bazel_command, where the script's flags define it: the packagers read SORTIE_BAZEL.
        flag_module = sys.modules.get('sortie.xm_flags')
        if flag_module is not None:
            command = flag_module.bazel_command(os.environ.get('SORTIE_BAZEL'))
            if command:
                os.environ['SORTIE_BAZEL'] = command
        packaged = self._native.package([packageable.request() for packageable in packageables])
        return [executables.Executable(executable, packageable.executor_spec.run_options())
                for executable, packageable in zip(packaged, packageables)]

    def add(self, job, args=None, *, role=None, identity=''):
        """Adds a work unit running `job` (an xm.Job or xm.JobGroup) with `args` applied. With a
        list of args, one work unit per entry, launched together: a sweep on a scheduler that
        submits batches (the slurm executor) is one submission, e.g. one Slurm job array; the
        work units are returned as a list."""
        if role is not None:
            raise ValueError('Experiment.add(role=...): sortie runs every work unit the same '
                             'way; drop role')
        if identity:
            raise ValueError('Experiment.add(identity=...): sortie gives work units ids from 1 '
                             'and does not deduplicate them by identity; drop identity')
        sweep = isinstance(args, (list, tuple))
        if sweep and not args:
            raise ValueError('Experiment.add(job, args=[]): a sweep needs at least one entry of '
                             'args, one per work unit')
        if isinstance(job, AuxiliaryUnitJob):
            return self._add_auxiliary(job, args)
        if isinstance(job, LaunchController):
            if args is not None:
                raise ValueError('Experiment.add(controller, args=...): a controller adds its '
                                 'own work units with their args; drop args')
            return job.run(self)
        if callable(job) and not isinstance(job, (xm_jobs.Job, xm_jobs.JobGroup)):
            return self._add_generated(job, args, sweep)
        units = [_apply_args(job, each) for each in (args if sweep else [args])]
        if isinstance(job, xm_jobs.Job):
            added = self._native.add_jobs([unit.request() for unit in units])
        elif isinstance(job, xm_jobs.JobGroup):
            added = self._native.add_groups([unit.request() for unit in units])
        else:
            raise TypeError(f'Experiment.add: expected an xm.Job or xm.JobGroup, got {job!r}')
        work_units = [WorkUnit(self, unit) for unit in added]
        for work_unit in work_units:
            self._units[work_unit.work_unit_id] = work_unit
            if _runs_locally(job):
                self._local_units.append(work_unit)
            if _streams_output(job) and not self._dry_run:
                for handle in work_unit.handles:
                    self._output_streams.follow(handle, self._runner.status(handle))
            if self._dry_run:
                for request in work_unit.dryrun_requests:
                    payload = json.loads(request)
                    print(json.dumps(payload.get('document', payload.get('request'))), flush=True)
        return work_units if sweep else work_units[0]

    def _add_generated(self, generator, args, sweep):
        """A job generator, XManager's `(async) def generator(work_unit, **args)`: it is
        called with a work unit whose add() collects jobs; what it added becomes that work
        unit, one job as a Job, several as one JobGroup (started and cancelled together)."""
        next_id = max(self.work_units, default=0) + 1
        units = []
        for offset, each in enumerate(args if sweep else [args]):
            pending = _GeneratedUnit(self, next_id + offset)
            _blocking.run_to_completion(generator(pending, **(each or {})))
            units.append(pending.job())
        work_units = [self.add(unit) for unit in units]
        for offset, work_unit in enumerate(work_units):
            if work_unit.work_unit_id != next_id + offset:
                raise RuntimeError(f'work unit {work_unit.work_unit_id} was added while the '
                                   'generator ran; its job names are wrong')
        return work_units if sweep else work_units[0]

    def _add_auxiliary(self, auxiliary, args):
        if isinstance(args, (list, tuple)):
            raise ValueError('Experiment.add(AuxiliaryUnitJob(...), args=[...]): an auxiliary '
                             'unit is one unit; give one args')
        unit = self.add(auxiliary.job, args)
        if unit in self._local_units:
            self._local_units.remove(unit)
            self._local_auxiliary_units.append((unit, auxiliary.termination_delay_secs))
        return unit

    def _wait_for_local_units(self):
        deadline = _Deadline(self._local_wait_timeout, 'local_wait_timeout')
        try:
            for unit in self._local_units:
                unit._wait(deadline)
        finally:
            self._output_streams.drain()
        ended = time.monotonic()
        for unit, delay in sorted(self._local_auxiliary_units, key=lambda entry: entry[1]):
            time.sleep(max(0.0, ended + delay - time.monotonic()))
            if unit.get_status().is_active:
                unit.stop(message='its experiment\'s work units have ended')
                try:  # the script goes on once it has ended, as XManager's
                    unit._wait(deadline)
                except ExperimentUnitFailedError:
                    pass  # CANCELLED, as asked

    # The `with` block is the launch (docs/experiments.md, XF-27): a script killed inside it
    # leaves the experiment PARTIAL, naming how many work units it launched. Leaving the block,
    # by an exception too, ends the launch before waiting for the local work units.
    def _begin_launch(self):
        if not self._dry_run:
            self._native.begin_launch()

    def _finish_launch(self):
        if not self._dry_run:
            self._native.finish_launch()

    def __enter__(self):
        self._begin_launch()
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self._finish_launch()
        if exc_type is None and not self._dry_run:
            self._wait_for_local_units()
        return False

    async def __aenter__(self):
        await _blocking.InThread(self._begin_launch)
        return self

    async def __aexit__(self, exc_type, exc_value, traceback):
        await _blocking.InThread(self._finish_launch)
        if exc_type is None and not self._dry_run:
            await _blocking.InThread(self._wait_for_local_units)
        return False

    def __repr__(self):
        return f'Experiment({self._native.id}, {self._native.title!r})'


def _streams_output(job):
    """Whether the job asks for its output on the terminal (Local(experimental_stream_output))."""
    if isinstance(job, xm_jobs.JobGroup):
        return any(_streams_output(member) for member in job.jobs.values())
    return getattr(job.executor, 'experimental_stream_output', False)


def _runs_locally(job):
    if isinstance(job, xm_jobs.JobGroup):
        return any(_runs_locally(member) for member in job.jobs.values())
    return job.executor.executor_type == 'local'


def _session():
    return os.environ.get('SORTIE_SESSION', '')


def _launch_dir():
    """Where relative executable paths resolve: the launch script's directory, as in XManager
    (the working directory in a notebook or an interactive interpreter)."""
    script = _launch_script()
    return os.path.dirname(script) if script else os.getcwd()


def _launch_script():
    script = getattr(sys.modules.get('__main__'), '__file__', None)
    return os.path.abspath(script) if script else ''


def create_experiment(experiment_title: str = '', *, live_workdir: bool = False,
                      local_wait_timeout: float = _blocking.DEFAULT_WAIT_SECONDS) -> Experiment:
    """`live_workdir=True`: process units run from the live launch directory, not the snapshot
    of it taken at their first launch (docs/experiments.md XF-29). Leaving the `with` block
    waits for the local work units at most `local_wait_timeout` seconds (default a day; then
    TimeoutError, they keep running)."""
    native = _sortie.Experiment.create(experiment_title, _session(), _launch_dir(),
                                       bool(os.environ.get(DRYRUN_ENV)), _launch_script(),
                                       bool(live_workdir))
    experiment = Experiment(native, _session())
    experiment._local_wait_timeout = local_wait_timeout
    return experiment


def get_experiment(experiment_id: int) -> Experiment:
    return Experiment(_sortie.Experiment.get(int(experiment_id), _session()), _session())


def list_experiments():
    return [get_experiment(experiment_id)
            for experiment_id in _sortie.Experiment.list_ids(_session())]


def run_in_asyncio_loop(function):
    """Runs an `async def main(...)` to completion when called: XManager's decorator for launch
    scripts that use `async with` and `await`."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        import asyncio  # pylint: disable=import-outside-toplevel  (costly; only scripts need it)
        return asyncio.run(function(*args, **kwargs))

    return run
