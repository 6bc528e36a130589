"""How sortie's Python API blocks without an event loop of its own.

Blocking calls release the GIL inside the compiled module and return at least every WAKE_SECONDS,
so Python runs its signal handlers (Ctrl-C raises KeyboardInterrupt promptly). Awaitables run the
same blocking call in a worker thread, so they work in any running asyncio loop (Jupyter's too).
"""

import sys

WAKE_SECONDS = 0.1
# How long a wait lasts at most unless given its own `timeout` (as `sortie run --wait`): a day,
# so a job stuck in a queue or hung still ends the script, with TimeoutError.
DEFAULT_WAIT_SECONDS = 24 * 60 * 60
# inspect.CO_COROUTINE | inspect.CO_ITERABLE_COROUTINE, without importing inspect (or asyncio,
# imported where awaited) at `import sortie.xm`: both cost more than the rest of the package.
_COROUTINE_FLAGS = 0x80 | 0x100


def called_from_coroutine(depth=2):
    """True when the caller `depth` frames up is an `async def` body (so it will `await`)."""
    frame = sys._getframe(depth)
    return bool(frame.f_code.co_flags & _COROUTINE_FLAGS)


class Done:
    """An awaitable for a result that is already there."""

    def __init__(self, result=None):
        self._result = result

    def __await__(self):
        return self._result
        yield  # unreachable: makes __await__ a generator that finishes at once

    def result(self):
        return self._result


class InThread:
    """An awaitable that runs `function` in a worker thread when awaited."""

    def __init__(self, function):
        self._function = function

    def __await__(self):
        import asyncio  # pylint: disable=import-outside-toplevel  (loaded by the awaiting loop)
        return asyncio.get_running_loop().run_in_executor(None, self._function).__await__()


def blocking_or_awaitable(function):
    """Runs `function` now and returns a Done awaitable, unless the caller is a coroutine, which
    gets an awaitable running it in a worker thread. `await unit.wait_until_complete()` then does
    not stall the loop, while a plain call (a script, a notebook cell) waits where it is."""
    if called_from_coroutine(depth=3):
        return InThread(function)
    return Done(function())


def run_to_completion(result):
    """The value of `result`, a plain value or a coroutine (an `async def` job generator's);
    a coroutine runs in an event loop of its own in a worker thread, so this works whether or
    not the caller's thread runs a loop."""
    if not hasattr(result, '__await__'):
        return result
    import asyncio  # pylint: disable=import-outside-toplevel  (only job generators need it)
    import concurrent.futures  # pylint: disable=import-outside-toplevel

    async def awaited():
        return await result
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as worker:
        return worker.submit(asyncio.run, awaited()).result()
