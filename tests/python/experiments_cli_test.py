"""An experiment launched from Python is listed, shown and cancelled by the CLI from another
process, and Python sees the cancellation; Python reopens experiments the CLI launched."""

import json
import os
import signal
import subprocess
import textwrap
import time

import support
from sortie import xm_local

SLEEPER = textwrap.dedent('''\
    from sortie import xm
    from sortie import xm_local
    experiment = xm_local.create_experiment(experiment_title='sleepers')
    [executable] = experiment.package([xm.binary(path='/bin/sleep',
                                                 executor_spec=xm_local.Local.Spec())])
    for _ in range(2):
        experiment.add(xm.Job(executable=executable, executor=xm_local.Local(), args=['60']))
    print(experiment.experiment_id, flush=True)
    [unit, _] = experiment.work_units.values()
    try:
        unit.wait_until_complete()
    except KeyboardInterrupt:
        print('KeyboardInterrupt', flush=True)
    except xm.ExperimentUnitFailedError as failed:
        print('stopped:', failed, flush=True)
''')


class ExperimentsCliTest(support.ScratchTestCase):

    def start_sleepers(self):
        script = os.path.join(self.scratch, 'sleepers.py')
        with open(script, 'w') as source:
            source.write(SLEEPER)
        process = subprocess.Popen(['sortie', 'launch', script], cwd=self.scratch, env=self.env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(process.kill)
        experiment_id = process.stdout.readline().strip()
        self.assertTrue(experiment_id.isdigit(), process.stderr.read() if not experiment_id else
                        experiment_id)
        return process, experiment_id

    def test_cli_lists_shows_and_cancels_a_python_experiment(self):
        process, experiment_id = self.start_sleepers()
        listed = json.loads(self.run_command('sortie', 'experiments', 'list', '--json').stdout)
        self.assertEqual([(e['id'], e['title'], e['work_units']) for e in listed['experiments']],
                         [(int(experiment_id), 'sleepers', 2)])
        shown = json.loads(self.run_command('sortie', 'experiments', 'show', experiment_id,
                                            '--json').stdout)
        self.assertEqual(shown['state'], 'RUNNING')
        self.run_command('sortie', 'experiments', 'cancel', experiment_id)
        output, _ = process.communicate(timeout=60)
        self.assertIn('stopped: work unit 1_1 ended CANCELLED', output)
        reopened = xm_local.get_experiment(int(experiment_id))
        self.assertEqual([unit.get_status().state for unit in reopened.work_units.values()],
                         ['CANCELLED', 'CANCELLED'])
        self.assertEqual(reopened.work_unit_count, 2)

    def test_ctrl_c_interrupts_wait_until_complete(self):
        process, experiment_id = self.start_sleepers()
        time.sleep(0.5)  # into wait_until_complete
        sent = time.monotonic()
        process.send_signal(signal.SIGINT)  # `sortie launch` exec'd python3: same process
        line = process.stdout.readline()
        latency = time.monotonic() - sent
        self.assertEqual(line, 'KeyboardInterrupt\n')
        # The latency is measured by the benchmark (docs/benchmarks.md); here it only has to be
        # far below the jobs' 60 s: the wait did not run to its end.
        self.assertLess(latency, 10)
        self.run_command('sortie', 'experiments', 'cancel', experiment_id)

    def test_python_reopens_an_experiment_file_launched_by_the_cli(self):
        with open(os.path.join(self.scratch, 'experiment.yaml'), 'w') as source:
            source.write('title: from the CLI\nexecutables: {t: {binary: /bin/true}}\n'
                         'job: {executable: t}\nsweep: {product: {x: [1, 2]}}\n')
        self.run_command('sortie', 'launch', '--wait', 'experiment.yaml')
        [experiment] = xm_local.list_experiments()
        self.assertEqual(experiment.experiment_title, 'from the CLI')
        for unit in experiment.work_units.values():
            self.assertTrue(unit.wait_until_complete().result().get_status().is_completed)


if __name__ == '__main__':
    support.main()
