"""sortie.xm_slurm on the real 2-node cluster (packaging/engines/slurm_up.sh), through the launch
script examples/python/slurm_sweep: a sweep added as one `experiment.add(job, args=[...])` is ONE
sbatch of a job array (counted with a PATH shim in front of sbatch), and a sweep of job groups is
one heterogeneous job per unit. The cluster is shared with tests/slurm: the same file lock runs
them one at a time."""

import fcntl
import glob
import os
import re
import subprocess
import unittest

import support

LOCK = '/tmp/sortie-slurm-tests.lock'


def cluster_up():
    try:
        ping = subprocess.run(['scontrol', 'ping'], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return 'UP' in ping.stdout


class SlurmSweepTest(support.ScratchTestCase):

    def setUp(self):
        super().setUp()
        if not cluster_up():
            if os.environ.get('CI') == 'true':
                self.fail('no Slurm cluster answers (packaging/engines/slurm_up.sh)')
            self.skipTest('no Slurm cluster answers (packaging/engines/slurm_up.sh)')
        lock = open(LOCK, 'a')  # pylint: disable=consider-using-with  (held for the test)
        self.addCleanup(lock.close)
        fcntl.flock(lock, fcntl.LOCK_EX)
        # sbatch behind a shim that logs each call's argv, one a line.
        shim = os.path.join(self.scratch, 'shim')
        os.makedirs(shim)
        self.calls = os.path.join(self.scratch, 'sbatch_calls')
        with open(os.path.join(shim, 'sbatch'), 'w') as script:
            script.write(f'#!/bin/sh\necho "$@" >>{self.calls}\nexec /usr/bin/sbatch "$@"\n')
        os.chmod(os.path.join(shim, 'sbatch'), 0o755)
        self.env['PATH'] = shim + os.pathsep + self.env['PATH']
        self.output = os.path.join(self.scratch, 'out')
        os.makedirs(self.output)
        self.directory = self.copy_example('slurm_sweep')

    def launch(self, *flags):
        result = self.run_command(
            'sortie', 'launch', os.path.join(self.directory, 'launcher.py'), '--',
            '--output_dir', self.output, *flags, check=False, timeout=240)
        match = re.search(r'experiment (\d+)', result.stdout)
        if match:  # nothing of the experiment outlives the test
            self.addCleanup(self.run_command, 'sortie', 'experiments', 'cancel', match.group(1),
                            check=False)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with open(self.calls) as calls:
            scripts = []
            for line in calls.read().splitlines():
                with open(line.split()[-1]) as script:
                    scripts.append(script.read())
        return result.stdout, scripts

    def written(self):
        found = {}
        for path in glob.glob(os.path.join(self.output, '*.txt')):
            with open(path) as text:
                found[os.path.basename(path)] = text.read().strip()
        return found

    def test_a_sweep_added_at_once_is_one_job_array(self):
        stdout, scripts = self.launch('--parallelism', '2')
        self.assertIn('experiment 1: SUCCEEDED SUCCEEDED SUCCEEDED SUCCEEDED', stdout)
        self.assertEqual(len(scripts), 1, scripts)
        self.assertIn('\n#SBATCH --array=0-3%2\n', scripts[0])
        self.assertEqual(self.written(), {f'1_{unit}_train.txt': f'--seed={unit - 1}'
                                          for unit in range(1, 5)})

    def test_a_sweep_of_job_groups_is_one_heterogeneous_job_per_unit(self):
        stdout, scripts = self.launch('--group')
        self.assertIn('experiment 1: SUCCEEDED SUCCEEDED SUCCEEDED SUCCEEDED', stdout)
        self.assertEqual(len(scripts), 4, scripts)
        for script in scripts:
            self.assertNotIn('--array', script)
            self.assertIn('#SBATCH hetjob\n', script)
        expected = {}
        for unit in range(1, 5):
            expected[f'1_{unit}_train.txt'] = f'train --seed={unit - 1}'
            expected[f'1_{unit}_evaluate.txt'] = 'evaluate'
        self.assertEqual(self.written(), expected)


class SlurmExecutorTest(support.ScratchTestCase):
    """What xm_slurm.Slurm hands the slurm scheduler, read from `sortie launch --dryrun`."""

    def test_arguments_become_the_run_options_of_the_same_names(self):
        script = os.path.join(self.scratch, 'dry.py')
        with open(script, 'w') as source:
            source.write('''import datetime
from sortie import xm, xm_slurm
with xm_slurm.create_experiment('dry') as experiment:
    [executable] = experiment.package([xm.binary(xm_slurm.Slurm.Spec(), '/bin/true')])
    executor = xm_slurm.Slurm(partition='debug', time=datetime.timedelta(days=1, minutes=5),
                              account='acct', qos='normal', constraint='fast', exclusive=True,
                              array_parallelism=3)
    experiment.add(xm.Job(executable, executor), args=[{}, {}])
''')
        result = self.run_command('sortie', 'launch', '--dryrun', script)
        requests = result.stdout.splitlines()
        self.assertEqual(len(requests), 2, result.stdout)
        for directive in ('--partition=debug', '--time=1-00:05:00', '--account=acct',
                          '--qos=normal', '--constraint=fast', '--exclusive'):
            self.assertIn(f'#SBATCH {directive}', requests[0])

    def test_what_slurm_cannot_take_is_refused_by_name(self):
        script = os.path.join(self.scratch, 'bad.py')
        for call, message in (
                ('xm_slurm.Slurm(array_parallelism=-1)', 'Slurm(array_parallelism=-1)'),
                ('xm_slurm.Slurm(time=0)', 'Slurm(time=0): give a positive number of minutes'),
                ('xm_slurm.Slurm(time=1.5)', 'Slurm(time=1.5): give a datetime.timedelta'),
                ('xm_slurm.Slurm(nodes=2)', "unexpected keyword argument 'nodes'")):
            with self.subTest(call):
                with open(script, 'w') as source:
                    source.write(f'from sortie import xm_slurm\n{call}\n')
                result = self.run_command('sortie', 'launch', script, check=False)
                self.assertNotEqual(result.returncode, 0)
                self.assertIn(message, result.stderr)


if __name__ == '__main__':
    support.main()
