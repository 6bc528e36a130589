"""TorchX's `torchx.runner` on sortie: `from sortie.runner import get_runner` in place of
`from torchx.runner import get_runner`. A thin client of sortie/runner.hpp: apps go to the same
store as the CLI's, so `sortie list` shows what Python ran and the other way round."""

import atexit
import json
import os
import queue
import re
import tempfile
import threading
import time
import weakref
from typing import Dict, Iterable, List, Optional, Union

from sortie import _blocking
from sortie import _refusal
from sortie import _sortie
from sortie import specs
from sortie.components import file_component


def _refuse_unsupported(method, workspace, parent_run_id):
    if workspace is not None:
        raise ValueError(f'Runner.{method}(workspace=...): sortie packages code through '
                         'packagers (sortie.xm), not workspaces; drop workspace')
    if parent_run_id is not None:
        raise ValueError(f'Runner.{method}(parent_run_id=...): sortie does not track run '
                         'lineage; drop parent_run_id')


def _cfg_of(cfg):
    """Run options as the CLI's -cfg takes them: lists joined with ';', booleans lower-case."""
    def text(value):
        if isinstance(value, bool):
            return 'true' if value else 'false'
        if isinstance(value, (list, tuple)):
            return ';'.join(str(item) for item in value)
        return str(value)
    return {key: text(value) for key, value in (cfg or {}).items() if value is not None}


def _component_args_of(component_args):
    if isinstance(component_args, dict):
        words = []
        for name, value in component_args.items():
            words += [f'--{name}', str(value)]
        return words
    return [str(word) for word in component_args]


class AppDryRunInfo(specs.AppDryRunInfo):
    """What dryrun() returns: the scheduler's request (`request`, text); schedule() runs it."""

    def __init__(self, request, run):
        super().__init__(request)
        self._run = run


class ListAppResponse:
    def __init__(self, app):
        self.app_handle = app['handle']
        parsed = specs.parse_app_handle(self.app_handle)
        self.app_id = parsed.app_id
        self.scheduler = parsed.scheduler_backend
        self.name = app['name']
        self.state = specs.AppState[app['state']] if app['state'] in specs.AppState.__members__ \
            else specs.AppState.UNKNOWN

    def __repr__(self):
        return f'ListAppResponse({self.app_handle!r}, {self.state})'


class Runner:
    """Runs apps on schedulers and follows them by handle (TorchX's Runner)."""

    def __init__(self, name: str, session: str):
        self._name = name
        self._native = _sortie.Runner(session)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()
        return False

    def close(self):
        """Nothing to release: every call opens and closes what it needs."""

    def _with_spec_file(self, app: specs.AppDef, call):
        # A fixed prefix: the app's name is the caller's text ('../x' would leave TMPDIR).
        spec_file = tempfile.NamedTemporaryFile('w', suffix='.json', prefix='sortie-spec-',
                                                delete=False)
        # Removed whatever fails, writing the spec included (a value JSON cannot hold).
        try:
            with spec_file:
                json.dump(app.spec(), spec_file)
            return call(spec_file.name)
        finally:
            os.unlink(spec_file.name)

    def run(self, app: specs.AppDef, scheduler: str, cfg=None, workspace=None,
            parent_run_id=None) -> specs.AppHandle:
        _refuse_unsupported('run', workspace, parent_run_id)
        return self._with_spec_file(
            app, lambda path: self._native.run(path, '', [], scheduler, _cfg_of(cfg)))

    def run_component(self, component: str, component_args: Union[List[str], Dict[str, object]],
                      scheduler: str, cfg=None, workspace=None,
                      parent_run_id=None) -> specs.AppHandle:
        """A builtin component by name, or a component function given as FILE.py:FUNCTION
        (called with component_args parsed against its signature, as `sortie run` does)."""
        _refuse_unsupported('run_component', workspace, parent_run_id)
        words = _component_args_of(component_args)
        if file_component.names_file_component(component):
            return self.run(file_component.app_of(component, words), scheduler, cfg)
        return self._native.run('', component, words, scheduler, _cfg_of(cfg))

    def dryrun(self, app: specs.AppDef, scheduler: str, cfg=None, workspace=None,
               parent_run_id=None) -> AppDryRunInfo:
        _refuse_unsupported('dryrun', workspace, parent_run_id)
        request = self._with_spec_file(
            app, lambda path: self._native.dryrun(path, '', [], scheduler, _cfg_of(cfg)))
        return AppDryRunInfo(request, lambda: self.run(app, scheduler, cfg))

    def dryrun_component(self, component: str, component_args, scheduler: str, cfg=None,
                         workspace=None, parent_run_id=None) -> AppDryRunInfo:
        _refuse_unsupported('dryrun_component', workspace, parent_run_id)
        words = _component_args_of(component_args)
        if file_component.names_file_component(component):
            return self.dryrun(file_component.app_of(component, words), scheduler, cfg)
        request = self._native.dryrun('', component, words, scheduler, _cfg_of(cfg))
        return AppDryRunInfo(request,
                             lambda: self.run_component(component, words, scheduler, cfg))

    def schedule(self, dryrun_info: AppDryRunInfo) -> specs.AppHandle:
        return dryrun_info._run()

    def status(self, app_handle: specs.AppHandle) -> Optional[specs.AppStatus]:
        status = self._native.status(app_handle)
        return specs.app_status_of(status) if status else None

    def wait(self, app_handle: specs.AppHandle, wait_interval: float = _blocking.WAKE_SECONDS,
             timeout: float = _blocking.DEFAULT_WAIT_SECONDS) -> Optional[specs.AppStatus]:
        """Blocks until the app is terminal, at most `timeout` seconds (default a day; then
        TimeoutError, the app keeps running); wakes every wait_interval seconds (at most
        _blocking.WAKE_SECONDS, so Ctrl-C is prompt). None for an unknown handle."""
        if self._native.status(app_handle) is None:
            return None
        wake_ms = int(min(wait_interval, _blocking.WAKE_SECONDS) * 1000)
        deadline = time.monotonic() + timeout
        while True:
            status = specs.app_status_of(self._native.wait(app_handle, wake_ms))
            if status.is_terminal():
                return status
            if time.monotonic() >= deadline:
                raise TimeoutError(f'{app_handle} is still {status.state.name} after '
                                   f'timeout={timeout:g} s; it keeps running (Runner.cancel '
                                   f'stops it)')

    def cancel(self, app_handle: specs.AppHandle) -> None:
        self._native.cancel(app_handle, 'runner API (Python)')

    def stop(self, app_handle: specs.AppHandle) -> None:
        """TorchX's older name of cancel."""
        self.cancel(app_handle)

    def name(self) -> str:
        return self._name

    def scheduler_backends(self) -> List[str]:
        """The schedulers of the installed plugins (`sortie plugins`)."""
        return self._native.registered_names('sortie.schedulers')

    def cfg_from_str(self, scheduler: str, *cfg_literal: str) -> Dict[str, str]:
        """'k1=v1,k2=v2' (several such texts merge) as a cfg dict; values stay text, as the
        scheduler's plugin checks them against its run options when the app runs."""
        del scheduler
        cfg = {}
        for literal in cfg_literal:
            for pair in filter(None, literal.split(',')):
                key, separator, value = pair.partition('=')
                if not separator:
                    raise ValueError(f'run option {pair!r} reads KEY=VALUE')
                cfg[key.strip()] = value.strip()
        return cfg

    scheduler_run_opts = _refusal.refused_method(
        'Runner.scheduler_run_opts', '`sortie runopts SCHEDULER [--json]` lists a scheduler\'s '
        'run options, their types, defaults and effects')

    def describe(self, app_handle: specs.AppHandle) -> Optional[specs.AppDef]:
        description = self._native.describe(app_handle)
        if not description or not description['app_json']:
            return None
        return specs.app_def_of(json.loads(description['app_json']))

    def list(self, scheduler: str) -> List[ListAppResponse]:
        return [ListAppResponse(app) for app in self._native.list(scheduler, False)]

    def log_lines(self, app_handle: specs.AppHandle, role_name: str, k: int = 0,
                  regex: Optional[str] = None, since=None, until=None,
                  should_tail: bool = False, streams=None) -> Iterable[str]:
        """The lines of replica k of role_name, each with its newline; `streams` is None
        (both), "stdout", "stderr" or "combined" (or TorchX's Stream enum by value)."""
        stream = getattr(streams, 'value', streams) or 'combined'
        if stream not in ('combined', 'stdout', 'stderr'):
            raise ValueError(f"log_lines(streams={streams!r}): expected 'stdout', 'stderr' or "
                             "'combined'")
        if regex is not None:
            re.compile(regex)
        arguments = (app_handle, role_name, {k}, regex or '', _nanoseconds(since),
                     _nanoseconds(until), should_tail, stream)
        return _LogReader(self._native, arguments)

    def metrics(self, app_handle: specs.AppHandle, key: Optional[str] = None) -> List[Dict]:
        """What the app's jobs measured (docs/experiments.md, "Measurements"), read from its
        logs first: one dict per key of each replica (and rank: torchrun's `[r]:` lines), by
        role, replica, rank and key (only `key`'s when given), as `sortie metrics --json` gives
        its series: role, replica, rank (None for lines of no rank), key, count, first, last,
        min, max and points, each point a dict of index, step, at_ns and value."""
        return self._native.metrics(app_handle, key or '')

    def __repr__(self):
        return f'Runner(name={self._name!r})'


def _nanoseconds(moment):
    return None if moment is None else int(moment.timestamp() * 1e9)


# The readers whose thread may still be in the compiled module: closed before the interpreter
# finalizes, since a thread that finds the interpreter gone there aborts the process.
_OPEN_READERS = weakref.WeakSet()


@atexit.register
def _close_open_readers():
    for reader in list(_OPEN_READERS):
        reader.close()


class _LogReader:
    """Lines read by a worker thread from the compiled module, handed over through a queue, so
    the reading thread can be interrupted (Ctrl-C) and closing the iterator stops the read."""

    _END = object()

    def __init__(self, native, arguments):
        self._lines = queue.Queue()
        self._closed = threading.Event()
        self._failure = None
        self._thread = threading.Thread(target=self._read, args=(native, arguments), daemon=True)
        self._thread.start()
        _OPEN_READERS.add(self)

    def _read(self, native, arguments):
        def deliver(lines):
            for line in lines:
                self._lines.put(line)
            return not self._closed.is_set()
        try:
            native.log_lines(*arguments, deliver)
        except Exception as failure:  # pylint: disable=broad-except  (re-raised by __next__)
            self._failure = failure
        self._lines.put(self._END)

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            try:
                line = self._lines.get(timeout=_blocking.WAKE_SECONDS)
                break
            except queue.Empty:
                continue
        if line is self._END:
            if self._failure is not None:
                raise self._failure
            raise StopIteration
        return line

    def close(self):
        """Stops the read and waits for it to end (within the compiled module's next poll of
        the log, half a second), so no thread of it outlives this call."""
        self._closed.set()
        self._thread.join()

    def __del__(self):
        self._closed.set()


def get_runner(name: Optional[str] = None, component_defaults=None,
               **scheduler_params) -> Runner:
    """A Runner on sortie's store. As in TorchX, `name` is the session in the handles it makes
    (SCHEDULER://NAME/APP_ID); by default $SORTIE_SESSION, else "default"."""
    if component_defaults:
        raise ValueError('get_runner(component_defaults=...): sortie components take their '
                         'defaults from their manifests; pass arguments to run_component')
    if scheduler_params:
        raise ValueError(f'get_runner({", ".join(scheduler_params)}=...): pass scheduler '
                         'options as cfg to run() or in .sortieconfig')
    session = name or os.environ.get('SORTIE_SESSION', '')
    return Runner(session or 'default', session)
