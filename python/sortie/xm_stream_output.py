"""XManager's Local(experimental_stream_output=True): a local job's output on the launch
script's terminal as it comes, each line prefixed with its role and replica, as XManager pipes
its local jobs' output to the terminal. One thread per replica follows its log until the job
ends; leaving the experiment's `with` block waits for them, so no line is cut off."""

import sys
import threading

from sortie import runner

# How long leaving `with` waits for a follower once its job has ended (its last lines).
_DRAIN_SECONDS = 30


class OutputStreams:
    def __init__(self, session: str):
        self._runner = runner.Runner('xm', session)
        self._threads = []

    def follow(self, handle: str, status: dict) -> None:
        """Prints every replica's lines of the app `handle` (its status: roles and replicas)."""
        for role in status['roles']:
            for replica in role['replicas']:
                thread = threading.Thread(target=self._print, daemon=True,
                                          args=(handle, role['role'], replica['id']))
                thread.start()
                self._threads.append(thread)

    def _print(self, handle, role, replica):
        for line in self._runner.log_lines(handle, role, replica, should_tail=True):
            sys.stdout.write(f'{role}/{replica} {line}')
            sys.stdout.flush()

    def drain(self) -> None:
        """Waits for the followers of ended jobs to print their last lines."""
        for thread in self._threads:
            thread.join(_DRAIN_SECONDS)
