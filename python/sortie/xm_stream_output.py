"""XManager's Local(experimental_stream_output=True): a local job's output on the launch
script's terminal as it comes, each line prefixed with its role and replica, as XManager pipes
its local jobs' output to the terminal. One thread per replica follows its log until the job
ends; leaving the experiment's `with` block waits for them, so no line is cut off, and then
stops and joins those still reading, so no thread is inside the compiled module when the
interpreter exits (one that was aborted the script, exit 134, before its error was printed)."""

import sys
import threading
import time

from sortie import runner

# How long leaving `with` waits for the followers once their jobs have ended (their last lines).
_DRAIN_SECONDS = 30


class OutputStreams:
    def __init__(self, session: str):
        self._runner = runner.Runner('xm', session)
        self._followers = []  # (thread, its log reader)

    def follow(self, handle: str, status: dict) -> None:
        """Prints every replica's lines of the app `handle` (its status: roles and replicas)."""
        for role in status['roles']:
            for replica in role['replicas']:
                lines = self._runner.log_lines(handle, role['role'], replica['id'],
                                               should_tail=True)
                thread = threading.Thread(target=self._print, daemon=True,
                                          args=(lines, f"{role['role']}/{replica['id']}"))
                thread.start()
                self._followers.append((thread, lines))

    @staticmethod
    def _print(lines, prefix):
        for line in lines:
            sys.stdout.write(f'{prefix} {line}')
            sys.stdout.flush()

    def drain(self) -> None:
        """Waits for the followers of ended jobs to print their last lines, then stops those
        still reading and waits until they have left the compiled module."""
        deadline = time.monotonic() + _DRAIN_SECONDS
        for thread, _ in self._followers:
            thread.join(max(0.0, deadline - time.monotonic()))
        for thread, lines in self._followers:
            lines.close()
            thread.join()
        self._followers = []
