"""Shared by the Python API tests: each test runs the installed sortie (PATH, PYTHONPATH set by
tests/python/CMakeLists.txt) from a scratch directory outside the tree, with a store of its own."""

import os
import shutil
import subprocess
import sys
import tempfile
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


def main():
    unittest.main(argv=sys.argv, verbosity=2)
