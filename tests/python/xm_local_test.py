"""XManager-style launch scripts (examples/python/local_arg_printer) run through `sortie launch`
with only their imports changed, and write what their jobs were given."""

import os

import support


class LocalLaunchTest(support.ScratchTestCase):

    def test_sweep_and_job_group_write_their_arguments(self):
        directory = self.copy_example('local_arg_printer')
        output = os.path.join(self.scratch, 'args.txt')
        result = self.run_command('sortie', 'launch', os.path.join(directory, 'launcher.py'),
                                  '--', '--output_file', output)
        self.assertIn('experiment 1: 5 work units', result.stdout)
        with open(output) as lines:
            written = sorted(lines.read().splitlines())
        self.assertEqual(written, sorted([
            '--verbose --learning_rate=0.1 --batch_size=16',
            '--verbose --learning_rate=0.1 --batch_size=32',
            '--verbose --learning_rate=0.01 --batch_size=16',
            '--verbose --learning_rate=0.01 --batch_size=32',
            '--verbose serve --port=8080',
            '--verbose connect',
        ]))
        shown = self.run_command('sortie', 'experiments', 'show', '1').stdout
        self.assertIn('SUCCEEDED', shown)
        self.assertNotIn('FAILED', shown)

    def test_async_launcher_awaits_its_work_units(self):
        directory = self.copy_example('local_arg_printer')
        output = os.path.join(self.scratch, 'args.txt')
        result = self.run_command('sortie', 'launch',
                                  os.path.join(directory, 'launcher_async.py'), '--', output)
        self.assertEqual(result.stdout.splitlines(),
                         ['work unit 1: SUCCEEDED', 'work unit 2: SUCCEEDED'])
        with open(output) as lines:
            self.assertEqual(sorted(lines.read().splitlines()), ['--seed=0', '--seed=1'])

    def test_script_runs_with_debian_python_and_its_arguments(self):
        script = os.path.join(self.scratch, 'where.py')
        with open(script, 'w') as source:
            source.write('import sys, sortie.xm\nprint(sys.executable, sys.argv[1:])\n')
        result = self.run_command('sortie', 'launch', script, '--', '-x', 'y')
        self.assertEqual(result.stdout, "/usr/bin/python3 ['-x', 'y']\n")

    def test_unknown_option_before_the_script_is_refused(self):
        result = self.run_command('sortie', 'launch', '--wait', 'x.py', check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("unknown option '--wait'", result.stderr)


if __name__ == '__main__':
    support.main()
