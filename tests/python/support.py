"""Shared by the Python API tests: each test runs the installed sortie (PATH, PYTHONPATH set by
tests/python/CMakeLists.txt) from a scratch directory outside the tree, with a store of its own."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES_DIR = os.path.join(SOURCE_DIR, 'examples', 'python')


class ScratchTestCase(unittest.TestCase):
    """A scratch working directory and store per test; examples are copied in, so relative
    paths resolve in the scratch directory as they would in a user's checkout."""

    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix='sortie-python-test-')
        self.addCleanup(shutil.rmtree, self.scratch, ignore_errors=True)
        self.env = dict(os.environ, SORTIE_STATE_DIR=os.path.join(self.scratch, 'state'))
        self.env.pop('SORTIE_SESSION', None)
        os.environ['SORTIE_STATE_DIR'] = self.env['SORTIE_STATE_DIR']
        # Cleanups run last-in first-out: these before the scratch directory goes.
        self.addCleanup(stop_bazel_servers_under, self.scratch)
        self.addCleanup(self.cancel_leftover_apps)

    def cancel_leftover_apps(self):
        """Cancels every app of the scratch store that is still active, whatever the test did,
        then fails the test if a local supervisor of its state directory still runs: an app
        outliving its test would outlive its scratch directory too."""
        listed = subprocess.run(['sortie', 'list', '--active', '--json'], cwd=self.scratch,
                                env=self.env, capture_output=True, text=True, timeout=120)
        if listed.returncode == 0:
            for app in json.loads(listed.stdout)['apps']:
                subprocess.run(['sortie', 'cancel', app['handle']], cwd=self.scratch,
                               env=self.env, capture_output=True, timeout=120)
        deadline = time.monotonic() + 10
        while supervisors_under(self.scratch) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(supervisors_under(self.scratch), [],
                         'local apps still run after the test and the cancellation of its apps')

    def copy_example(self, name):
        source = os.path.join(EXAMPLES_DIR, name)
        target = os.path.join(self.scratch, os.path.basename(name))
        if os.path.isdir(source):
            shutil.copytree(source, target)
        else:
            shutil.copy(source, target)
        return target

    def run_command(self, *words, check=True, timeout=120):
        result = subprocess.run(words, cwd=self.scratch, env=self.env, capture_output=True,
                                text=True, timeout=timeout)
        if check and result.returncode != 0:
            self.fail(f'{" ".join(words)} exited {result.returncode}\nstdout:\n{result.stdout}'
                      f'\nstderr:\n{result.stderr}')
        return result


def processes_under(directory, is_program):
    """(pid, command line words) of running processes whose program passes `is_program` and
    whose command line names `directory`."""
    found = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open(f'/proc/{pid}/cmdline', 'rb') as cmdline:
                words = cmdline.read().decode(errors='replace').split('\0')
        except OSError:
            continue
        if words and is_program(words[0]) and any(directory in word for word in words):
            found.append((int(pid), words))
    return found


def supervisors_under(directory):
    """The command lines of running sortie-local-supervisor processes that name `directory`."""
    return [' '.join(words) for _, words in processes_under(
        directory, lambda program: program.endswith('sortie-local-supervisor'))]


def stop_bazel_servers_under(directory):
    """Stops the Bazel servers of workspaces under `directory`: a server outlives its client by
    3 hours by default (a quarter of a GB each), and its workspace goes with the test."""
    for pid, _ in processes_under(directory, lambda program: program.startswith('bazel(')):
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass


def main():
    unittest.main(argv=sys.argv, verbosity=2)
