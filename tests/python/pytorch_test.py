"""Real PyTorch training through the installed sortie (examples/pytorch/train.py: deterministic
DDP linear regression, gloo on CPU): `dist.ddp` on local_cwd in both shapes, the learning-rate
sweep of an experiment file and of a Python launcher with its units running at the same time,
the sweep launched three times at once,
eight DDP apps at once, three that checkpoint at once each in its own output directory, and a
rank killed mid-epoch that resumes from its checkpoint.

The final losses are the example's known results (examples/pytorch/README.md), the same for a
1x2 and a 2x1 job and for an interrupted job that resumed. A unit that trained with another
unit's rank (a shared rendezvous port) ends with another number."""

import json
import os
import re
import shutil
import subprocess
import time

import support

# Final loss of train.py with 5 epochs and world size 2, per learning rate, run alone.
KNOWN_FINAL_LOSS = {'0.01': '0.156684', '0.05': '0.296632', '0.1': '0.919923'}


class PyTorchTest(support.ScratchTestCase):

    def setUp(self):
        super().setUp()
        self.example = os.path.join(self.scratch, 'pytorch')
        shutil.copytree(os.path.join(support.SOURCE_DIR, 'examples', 'pytorch'), self.example)
        # Debian's python3 has python3-torch (and sortie's module); the replicas find it first,
        # as on the fresh Debian machine the README starts from.
        bin_dir = os.path.dirname(shutil.which('sortie', path=self.env['PATH']))
        self.env['PATH'] = os.pathsep.join([bin_dir, '/usr/bin', self.env['PATH']])
        # torchrun polls its workers every 5 s by default; the jobs end sooner with 0.5.
        self.env['PET_MONITOR_INTERVAL'] = '0.5'

    def final_loss(self, handle):
        log = self.run_command('sortie', 'log', handle).stdout
        losses = re.findall(r'final_loss=([0-9.]+)', log)
        self.assertEqual(len(losses), 1, f'one final loss expected in the log of {handle}:\n{log}')
        return losses[0]

    def status(self, handle):
        return json.loads(self.run_command('sortie', 'status', handle, '--json').stdout)

    def run_ddp(self, *words, timeout=180):
        result = self.run_command('sortie', 'run', '-s', 'local_cwd', '--wait', *words,
                                  timeout=timeout)
        return result.stdout.splitlines()[0]

    def test_ddp_1x2_and_2x1_train_to_the_same_loss(self):
        for shape in ('1x2', '2x1'):
            with self.subTest(shape=shape):
                handle = self.run_ddp('dist.ddp', '-j', shape, '--script', 'pytorch/train.py',
                                      '--', '--lr', '0.05')
                self.assertEqual(self.status(handle)['state'], 'SUCCEEDED')
                self.assertEqual(self.final_loss(handle), KNOWN_FINAL_LOSS['0.05'])

    def assert_sweep_units_trained_alone_and_together(self, experiment_id):
        shown = json.loads(self.run_command('sortie', 'experiments', 'show', experiment_id,
                                            '--json').stdout)
        self.assertEqual(len(shown['work_units']), 3)
        starts, ends = [], []
        for unit, lr in zip(shown['work_units'], ('0.01', '0.05', '0.1')):
            self.assertEqual(unit['state'], 'SUCCEEDED', shown)
            [job] = unit['jobs']
            self.assertEqual(self.final_loss(job['app']), KNOWN_FINAL_LOSS[lr],
                             f'work unit {unit["id"]} (lr={lr}) trained another model')
            replicas = self.status(job['app'])['roles'][0]['replicas']
            starts += [replica['started_at'] for replica in replicas]
            ends += [replica['finished_at'] for replica in replicas]
        self.assertLess(max(starts), min(ends), 'the units did not all run at the same time')
        # train.py checkpoints in each unit's own output directory, never in the launch dir.
        output_dirs = [unit['output_dir'] for unit in shown['work_units']]
        self.assertEqual(output_dirs, [
            os.path.join(self.env['SORTIE_STATE_DIR'], 'outputs', 'experiments', experiment_id,
                         str(unit)) for unit in (1, 2, 3)])
        for output_dir in output_dirs:
            self.assertTrue(os.path.isfile(os.path.join(output_dir, 'ckpt.pt')), output_dir)
        launch_dir = os.path.join(self.scratch, 'pytorch')
        self.assertEqual([name for name in os.listdir(launch_dir) if name.endswith('.pt')], [])

    def test_sweep_file_units_run_together_each_with_its_own_loss(self):
        self.run_command('sortie', 'launch', '--wait', 'pytorch/sweep.yaml', timeout=300)
        self.assert_sweep_units_trained_alone_and_together('1')
        # Its loss lines are measurements (SORTIE_METRICS_PATTERN): the units by final loss.
        shown = json.loads(self.run_command('sortie', 'experiments', 'show', '1', '--sort',
                                            'final_loss', '--json').stdout)
        ranked = [(unit['args']['lr'], unit['measurements']) for unit in shown['work_units']]
        self.assertEqual([lr for lr, _ in ranked], ['0.01', '0.05', '0.1'])
        for lr, measured in ranked:
            self.assertEqual(f"{measured['final_loss']['last']:.6f}", KNOWN_FINAL_LOSS[lr])
            self.assertEqual(measured['loss']['count'], 5)  # one per epoch, rank 0's
            self.assertEqual(measured['loss']['last_step'], 4)

    def test_the_sweep_launched_three_times_at_once_gives_its_known_losses_every_time(self):
        # Issue 31: nine units of three experiments at once from one directory share no port,
        # checkpoint, snapshot or measurement: each unit ends with its learning rate's loss.
        launches = [subprocess.Popen(['sortie', 'launch', '--wait', 'pytorch/sweep.yaml'],
                                     cwd=self.scratch, env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True) for _ in range(3)]
        for launch in launches:
            output, _ = launch.communicate(timeout=600)
            self.assertEqual(launch.returncode, 0, output)
        for experiment_id in ('1', '2', '3'):
            with self.subTest(experiment=experiment_id):
                self.assert_sweep_units_trained_alone_and_together(experiment_id)
                shown = json.loads(self.run_command('sortie', 'experiments', 'show',
                                                    experiment_id, '--json').stdout)
                for unit in shown['work_units']:
                    self.assertEqual(f"{unit['measurements']['final_loss']['last']:.6f}",
                                     KNOWN_FINAL_LOSS[unit['args']['lr']])

    def test_python_launcher_units_run_together_each_with_its_own_loss(self):
        result = self.run_command('sortie', 'launch', 'pytorch/launcher.py', timeout=300)
        self.assertEqual(result.stdout.splitlines()[-1],
                         'experiment 1: SUCCEEDED SUCCEEDED SUCCEEDED')
        self.assert_sweep_units_trained_alone_and_together('1')

    def test_eight_ddp_apps_at_once_never_share_a_port(self):
        handles = [self.run_command('sortie', 'run', '-s', 'local_cwd', 'dist.ddp', '-j', '1x2',
                                    '--script', 'pytorch/train.py', '--', '--epochs', '1')
                   .stdout.strip() for _ in range(8)]
        ports = set()
        for handle in handles:
            self.run_command('sortie', 'log', '-f', handle, timeout=300)  # until it ends
            status = self.status(handle)
            self.assertEqual(status['state'], 'SUCCEEDED', status)
            app_dir = status['ui_url'][len('file://'):]
            with open(os.path.join(app_dir, 'request.json')) as request:
                argv = json.load(request)['roles'][0]['replicas'][0]['argv']
            endpoint = argv[argv.index('--rdzv_endpoint') + 1]
            self.assertRegex(endpoint, r'^localhost:\d+$')
            ports.add(endpoint)
        self.assertEqual(len(ports), 8, f'ports shared by concurrent apps: {sorted(ports)}')

    def test_concurrent_ddp_runs_checkpoint_in_their_own_output_dirs(self):
        # Three runs of one script from one directory at once: train.py's checkpoint defaults to
        # $SORTIE_OUTPUT_DIR/ckpt.pt, so no run resumes from another's checkpoint (with one
        # ckpt.pt in the working directory, 3 of 4 such trios ended with nan or another lr's
        # loss, all SUCCEEDED).
        learning_rates = ('0.01', '0.05', '0.1')
        handles = [self.run_command('sortie', 'run', '-s', 'local_cwd', 'dist.ddp', '-j', '1x2',
                                    '--script', 'pytorch/train.py', '--', '--lr', lr)
                   .stdout.strip() for lr in learning_rates]
        output_dirs = set()
        for handle, lr in zip(handles, learning_rates):
            self.run_command('sortie', 'log', '-f', handle, timeout=300)  # until it ends
            self.assertEqual(self.status(handle)['state'], 'SUCCEEDED')
            self.assertEqual(self.final_loss(handle), KNOWN_FINAL_LOSS[lr],
                             f'{handle} (lr={lr}) trained from another run\'s checkpoint')
            described = json.loads(self.run_command('sortie', 'describe', handle,
                                                    '--json').stdout)
            output_dir = described['app']['output_dir']
            self.assertTrue(os.path.isfile(os.path.join(output_dir, 'ckpt.pt')), output_dir)
            self.assertEqual(os.stat(output_dir).st_mode & 0o777, 0o700)
            output_dirs.add(output_dir)
        self.assertEqual(len(output_dirs), 3, output_dirs)
        self.assertFalse(os.path.exists(os.path.join(self.scratch, 'ckpt.pt')))

    def test_python_ddp_component_builds_an_app_the_runner_runs(self):
        script = os.path.join(self.scratch, 'run_ddp.py')
        with open(script, 'w') as source:
            source.write(
                'from sortie.components.dist import ddp\n'
                'from sortie.runner import get_runner\n'
                'app = ddp("--lr", "0.05", script="pytorch/train.py", j="2x1")\n'
                'role = app.roles[0]\n'
                'print(role.entrypoint, role.num_replicas, " ".join(role.args))\n'
                'runner = get_runner()\n'
                'handle = runner.run(app, scheduler="local_cwd")\n'
                'print(handle)\n'
                'print(runner.wait(handle).state.name)\n')
        described, handle, state = self.run_command('/usr/bin/python3', script,
                                                    timeout=180).stdout.splitlines()
        self.assertRegex(described, r'^python3 2 -m torch.distributed.run --nnodes 2 '
                                    r'--nproc_per_node 1 .*--rdzv_endpoint \$\{rank0_host\}:'
                                    r'\$\{free_port\} --rdzv_id \$\{app_id\} .* '
                                    r'pytorch/train.py --lr 0.05$')
        self.assertEqual(state, 'SUCCEEDED')
        self.assertEqual(self.final_loss(handle), KNOWN_FINAL_LOSS['0.05'])

    def test_a_killed_rank_resumes_from_its_checkpoint_past_the_grace_period(self):
        # Rank 1 SIGKILLs itself in epoch 3; torchrun ends the attempt, sortie restarts the app
        # (max_retries 1), which resumes from the epoch-2 checkpoint and runs for longer than
        # the 1 s grace period that stopped the first attempt.
        started = time.monotonic()
        handle = self.run_ddp('-cfg', 'cancel_grace_period=1', 'dist.ddp', '-j', '1x2',
                              '--max_retries', '1', '--script', 'pytorch/train.py', '--',
                              '--lr', '0.05', '--crash_once', 'crashed')
        status = self.status(handle)
        self.assertEqual(status['state'], 'SUCCEEDED', status)
        self.assertEqual(status['num_restarts'], 1)
        log = self.run_command('sortie', 'log', handle).stdout
        self.assertIn('rank 1 kills itself at epoch=3', log)
        # From the app's own output directory, which both attempts share.
        output_dir = json.loads(self.run_command('sortie', 'describe', handle,
                                                 '--json').stdout)['app']['output_dir']
        self.assertIn(f'resumed from {output_dir}/ckpt.pt at epoch=3', log)
        self.assertEqual(self.final_loss(handle), KNOWN_FINAL_LOSS['0.05'])
        [replica] = status['roles'][0]['replicas']
        self.assertGreater(replica['finished_at'] - replica['started_at'], 1e9,
                           'the restarted attempt ended within the grace period')
        self.assertLess(time.monotonic() - started, 170)


if __name__ == '__main__':
    support.main()
