"""Measurements from Python (docs/experiments.md, "Measurements"): a sweep's jobs report with
sortie.track.log (to $SORTIE_METRICS_FILE) or print `step=N loss=X`, and work_unit.measurements()
and runner.metrics(handle) give the numbers `sortie experiments show --json` gives."""

import json
import os
import sys

import support
from sortie import runner as torchx_runner
from sortie import xm_local

# Each unit's job: three steps of loss falling to lr * 10 + 1 / batch, reported with
# sortie.track.log, or printed (where SORTIE_METRICS_FILE is unset, as track.log prints then).
JOB = '''\
import os, sys
from sortie import track
lr = float(sys.argv[1].split('=')[1])
batch = int(sys.argv[2].split('=')[1])
if os.environ.get('MODE') == 'print':
    del os.environ['SORTIE_METRICS_FILE']
for step in (1, 2, 3):
    track.log(step=step, loss=lr * 10 + 1 / batch + (3 - step), acc=1 - lr - 1 / batch,
              diverged=float('nan'))
'''

EXPERIMENT = '''\
title: measured from python
live_workdir: true
executables:
  trainer: {{binary: {python}, args: [job.py]}}
job: {{executable: trainer, env_vars: {{MODE: {mode}, SORTIE_METRICS_PATTERN: default}}}}
sweep: {{product: {{lr: [0.1, 0.01], batch: [16, 32]}}}}
'''


class MeasurementsTest(support.ScratchTestCase):

    def launch(self, mode):
        with open(os.path.join(self.scratch, 'job.py'), 'w') as source:
            source.write(JOB)
        with open(os.path.join(self.scratch, f'{mode}.yaml'), 'w') as source:
            source.write(EXPERIMENT.format(python=sys.executable, mode=mode))
        self.run_command('sortie', 'launch', '--wait', f'{mode}.yaml')
        listed = json.loads(self.run_command('sortie', 'experiments', 'list', '--json').stdout)
        return listed['experiments'][0]['id']

    def test_work_units_and_the_runner_give_what_the_cli_gives(self):
        for mode in ('file', 'print'):
            with self.subTest(mode=mode):
                experiment_id = self.launch(mode)
                shown = json.loads(self.run_command(
                    'sortie', 'experiments', 'show', str(experiment_id), '--json').stdout)
                cli = {unit['id']: unit['measurements'] for unit in shown['work_units']}
                experiment = xm_local.get_experiment(experiment_id)
                for unit_id, unit in experiment.work_units.items():
                    measured = unit.measurements()
                    self.assertEqual(measured, cli[unit_id])
                    self.assertEqual(sorted(measured), ['acc', 'loss'])  # nan left out
                    args = next(u['args'] for u in shown['work_units'] if u['id'] == unit_id)
                    self.assertAlmostEqual(
                        measured['loss']['last'],
                        float(args['lr']) * 10 + 1 / float(args['batch']))
                    self.assertEqual(measured['loss']['last_step'], 3)
                    self.assertEqual(measured['loss']['count'], 3)

                handle = shown['work_units'][0]['jobs'][0]['app']
                with torchx_runner.get_runner() as runner:
                    series = runner.metrics(handle, key='loss')
                self.assertEqual(len(series), 1)
                self.assertEqual([p['step'] for p in series[0]['points']], [1, 2, 3])
                self.assertEqual(series[0]['last']['value'],
                                 cli[shown['work_units'][0]['id']]['loss']['last'])

    def test_a_unit_reads_rank_zero_of_a_torchrun_job_as_the_cli_does(self):
        script = os.path.join(self.scratch, 'ranks.sh')
        with open(script, 'w') as source:
            source.write('#!/bin/sh\necho step=1 loss=7; echo "[1]:step=1 loss=0.9"\n'
                         'echo "[0]:step=1 loss=0.5"\n')
        os.chmod(script, 0o755)
        with open(os.path.join(self.scratch, 'ranks.yaml'), 'w') as source:
            source.write('title: ranks\nlive_workdir: true\n'
                         'executables:\n  trainer: {binary: ./ranks.sh}\n'
                         'job: {executable: trainer, env_vars: {SORTIE_METRICS_PATTERN: default}}\n')
        self.run_command('sortie', 'launch', '--wait', 'ranks.yaml')
        experiment_id = json.loads(self.run_command(
            'sortie', 'experiments', 'list', '--json').stdout)['experiments'][0]['id']
        shown = json.loads(self.run_command(
            'sortie', 'experiments', 'show', str(experiment_id), '--json').stdout)
        measured = next(iter(xm_local.get_experiment(experiment_id).work_units.values()))
        self.assertEqual(measured.measurements(), shown['work_units'][0]['measurements'])
        self.assertEqual(measured.measurements()['loss']['last'], 0.5)
        self.assertEqual(measured.measurements()['loss']['rank'], 0)

    def test_track_log_refuses_a_name_that_is_not_a_word(self):
        from sortie import track
        with self.assertRaises(ValueError):
            track.log(step=1, **{'a b': 1.0})


if __name__ == '__main__':
    support.main()
