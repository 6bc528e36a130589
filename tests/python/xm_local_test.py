"""XManager-style launch scripts (examples/python/local_arg_printer) run through `sortie launch`
with only their imports changed, and write what their jobs were given."""

import json
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

    def launch_block(self, program, job_args, statements, show=True):
        """Runs `sortie launch` on a script whose `with` block packages `program`, makes `job`
        of it with `job_args` and runs `statements`; returns the launch's result and experiment
        1 as shown (None with show=False)."""
        script = os.path.join(self.scratch, 'script.py')
        with open(script, 'w') as source:
            source.write(
                'import os, signal\n'
                'from sortie import xm, xm_local\n'
                'with xm_local.create_experiment(experiment_title="block") as experiment:\n'
                '    [executable] = experiment.package([xm.binary(\n'
                f'        path="{program}", executor_spec=xm_local.Local.Spec())])\n'
                '    job = xm.Job(executable=executable, executor=xm_local.Local(),\n'
                f'                 args={job_args!r})\n'
                + ''.join(f'    {statement}\n' for statement in statements))
        result = self.run_command('sortie', 'launch', script, check=False)
        if not show:
            return result, None
        shown = self.run_command('sortie', 'experiments', 'show', '1', '--json').stdout
        return result, json.loads(shown)

    def test_waits_running_out_of_their_timeout_raise_timeout_error(self):
        # Issue 26: wait_until_complete and leaving the `with` block had no bound.
        script = os.path.join(self.scratch, 'script.py')
        with open(script, 'w') as source:
            source.write(
                'from sortie import xm, xm_local\n'
                'try:\n'
                '    with xm_local.create_experiment("slow", local_wait_timeout=0.5) as e:\n'
                '        [executable] = e.package([xm.binary(\n'
                '            path="/bin/sleep", executor_spec=xm_local.Local.Spec())])\n'
                '        unit = e.add(xm.Job(executable=executable, executor=xm_local.Local(),\n'
                '                            args=["60"]))\n'
                '        try:\n'
                '            unit.wait_until_complete(timeout=0.5)\n'
                '        except TimeoutError as error:\n'
                '            print(error)\n'
                'except TimeoutError as error:\n'
                '    print(error)\n')
        result = self.run_command('sortie', 'launch', script, check=False)
        self.run_command('sortie', 'experiments', 'cancel', '1')
        self.assertEqual(result.stdout.splitlines(), [
            'work unit 1_1 still runs after timeout=0.5 s; its jobs keep running '
            '(`sortie experiments cancel 1` stops them)',
            'work unit 1_1 still runs after local_wait_timeout=0.5 s; its jobs keep running '
            '(`sortie experiments cancel 1` stops them)'], result.stderr)

    def test_a_script_killed_between_two_adds_leaves_its_experiment_partial(self):
        # Issue 16 point 6: each add() is its own launch unless the `with` block declares one.
        result, shown = self.launch_block('/bin/sleep', ['600'], [
            'experiment.add(job)', 'os.kill(os.getpid(), signal.SIGKILL)', 'experiment.add(job)'])
        # `sortie launch` becomes the script's Python (execv): it dies of the signal itself.
        self.assertEqual(result.returncode, -9, result.stderr)
        self.assertEqual(shown['state'], 'PARTIAL')
        self.assertRegex(shown['partial_reason'],
                         r'^launched 1 work units; the launch was interrupted '
                         r'\(its process [0-9]+ is gone\)$')
        self.assertEqual(shown['units_state'], 'RUNNING')

    def test_a_script_that_finishes_its_block_is_not_partial(self):
        result, shown = self.launch_block('/bin/true', [], ['experiment.add(job)'])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((shown['state'], shown['partial_reason']), ('SUCCEEDED', ''))

    def test_a_block_whose_packaging_fails_leaves_no_experiment(self):
        result, _ = self.launch_block('/nonexistent/program', [], ['experiment.add(job)'],
                                      show=False)
        self.assertNotEqual(result.returncode, 0)
        listed = self.run_command('sortie', 'experiments', 'list', '--json').stdout
        self.assertEqual(json.loads(listed)['experiments'], [])

    def test_rerun_runs_the_failed_unit_again_as_its_second_attempt(self):
        # Issue 23: experiment.rerun(failed=True) and work_unit.rerun(), in the `with` block.
        marker = os.path.join(self.scratch, 'marker')
        output = os.path.join(self.scratch, 'ran.txt')
        open(marker, 'w').close()
        program = os.path.join(self.scratch, 'seeded.sh')
        with open(program, 'w') as source:
            source.write(f'#!/bin/sh\ncase "$*" in *--seed=2*) [ -e {marker} ] && exit 1 ;; esac\n'
                         f'echo "$*" >>{output}\n')
        os.chmod(program, 0o755)
        result, shown = self.launch_block(program, [], [
            'units = experiment.add(job, args=[{"args": {"seed": s}} for s in (1, 2, 3)])',
            'for unit in units:',
            '    try:',
            '        unit.wait_until_complete()',
            '    except xm.ExperimentUnitFailedError as error:',
            '        print(error)',
            f'os.remove({marker!r})',
            '[again] = experiment.rerun(failed=True)',
            'print(again.work_unit_id, again.attempt, again.earlier_handles == units[1].handles)',
            'again.wait_until_complete()',
            'print(again.get_status().state)',
            'print(units[0].rerun().attempt)',
            'try:',
            '    experiment.rerun(units=[7])',
            'except Exception as error:',
            '    print(type(error).__name__)'])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.splitlines(), [
            'work unit 1_2 ended FAILED: replica seeded_sh/0 failed: exited with code 1 (see '
            '`sortie experiments show 1`)',
            '2 2 True', 'SUCCEEDED', '2', 'Error'])
        self.assertEqual([unit['attempt'] for unit in shown['work_units']], [2, 2, 1])
        self.assertEqual(shown['state'], 'SUCCEEDED')
        with open(output) as lines:
            self.assertEqual(sorted(lines.read().splitlines()),
                             ['--seed=1', '--seed=1', '--seed=2', '--seed=3'])

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
