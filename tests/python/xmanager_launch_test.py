"""XManager launch scripts and TorchX component files run unchanged under sortie: `from xmanager
import xm, xm_local` and `torchx.specs` are sortie's inside `sortie launch` (the sortie-compat
path), while an installed package of those names keeps working outside it. The scripts are this
test's own, making the calls of XManager's examples/ launchers (local_arg_printer,
local_container_links) with local binaries, so they run for real and offline."""

import json
import os
import shutil
import subprocess
import textwrap

import support

ARG_PRINTER = '''#!/bin/sh
echo "$@" >> "$SORTIE_LAUNCH_DIR/$OUTPUT_NAME"
'''

ARG_PRINTER_LAUNCHER = '''
from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local

_OUTPUT = flags.DEFINE_string('output_name', 'args.txt', 'file the jobs write')


def main(argv):
    del argv
    with xm_local.create_experiment(experiment_title='local_arg_printer') as experiment:
        [executable] = experiment.package([
            xm.Packageable(executable_spec=xm.Binary(path='./arg_printer.sh'),
                           executor_spec=xm_local.Local.Spec())])
        for rate in (0.1, 0.01):
            experiment.add(xm.Job(
                executable=executable, executor=xm_local.Local(
                    xm.JobRequirements(cpu=1)),
                args={'learning_rate': rate, 'path': xm.ShellSafeArg('a b')},
                env_vars={'OUTPUT_NAME': _OUTPUT.value}))
    print(experiment.context.annotations.title, len(experiment.work_units),
          experiment.work_units[2].get_status().state)


if __name__ == '__main__':
    app.run(main)
'''

GENERATOR_LAUNCHER = '''
from absl import app
from xmanager import xm
from xmanager import xm_local


def main(_):
    with xm_local.create_experiment(experiment_title='links') as experiment:
        [printer] = experiment.package([xm.Packageable(
            executable_spec=xm.Binary(path='./arg_printer.sh'),
            executor_spec=xm_local.Local.Spec())])

        async def generator(work_unit, greeting):
            work_unit.add(xm.JobGroup(
                server=xm.Job(printer, xm_local.Local(),
                              args={'peer': work_unit.get_full_job_name('client')},
                              env_vars={'OUTPUT_NAME': 'server.txt'}),
                client=xm.Job(printer, xm_local.Local(), args=[greeting],
                              env_vars={'OUTPUT_NAME': 'client.txt'})))

        experiment.add(generator, args={'greeting': 'hello'})
    [unit] = experiment.work_units.values()
    print(unit.work_unit_id, unit.get_status().state)


if __name__ == '__main__':
    app.run(main)
'''

REFUSALS_SCRIPT = '''
from xmanager import xm
from xmanager import xm_local
from xmanager.cloud import vertex

experiment = xm_local.create_experiment('refusals')
[executable] = experiment.package([xm.binary(xm_local.Local.Spec(), '/bin/true')])
unit = experiment.add(xm.Job(executable, xm_local.Local()))
for attempt in (lambda: __import__('xmanager.contrib.parameter_controller'),
                lambda: vertex.get_default_client(),
                lambda: xm.Importance,
                lambda: unit.context):
    try:
        attempt()
    except NotImplementedError as refusal:
        print(refusal)
'''

FLOW_LAUNCHER = '''
import sys
from xmanager import xm
from xmanager import xm_local
from xmanager.contrib import flow

with xm_local.create_experiment('flow') as experiment:
    [step] = experiment.package([xm.Packageable(xm.Binary(path='./step.sh'),
                                                xm_local.Local.Spec())])
    def job(name):
        return xm.Job(step, xm_local.Local(), env_vars={'STEP': name})
    launched = experiment.add(flow.executable_graph(
        jobs={name: job(name) for name in ('final', 'train', 'eval', 'preprocessing')},
        jobs_deps={'train': ['preprocessing'], 'eval': ['preprocessing'],
                   'final': ['train', 'eval']},
        jobs_args={'eval': {'args': ['--fail']} if sys.argv[1:] == ['fail'] else None}))
    print(sorted(launched))
'''

STEP = '''#!/bin/sh
sleep 0.5
echo "$STEP $*" >> "$SORTIE_LAUNCH_DIR/steps.txt"
[ "$1" != --fail ]
'''

STREAMED_LAUNCHER = '''
from xmanager import xm
from xmanager import xm_local

with xm_local.create_experiment('streamed') as experiment:
    [printer] = experiment.package([xm.Packageable(xm.Binary(path='./two_lines.sh'),
                                                   xm_local.Local.Spec())])
    experiment.add(xm.Job(printer, xm_local.Local(experimental_stream_output=True),
                          args=['x']))
    print('added')
print('left with')
'''

UNSTARTABLE_LAUNCHER = '''
from xmanager import xm
from xmanager import xm_local

with xm_local.create_experiment('unstartable') as experiment:
    executor = xm_local.Local(experimental_stream_output=True)
    [image] = experiment.package([xm.Packageable(
        xm.Container(image_path='sortie-test/busybox:latest'), executor.Spec())])
    experiment.add(xm.Job(image, executor, args=['/no/such/program']))
print('not reached')
'''

TWO_LINES = '''#!/bin/sh
echo first "$@"
sleep 1
echo second
'''

SLEEPER = '''#!/bin/sh
echo started >> "$SORTIE_LAUNCH_DIR/sleeper.txt"
exec sleep 300
'''

AUXILIARY_LAUNCHER = '''
from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local
from xmanager.contrib import gcs
from xmanager.contrib import tensorboard


def main(_):
    print(gcs.get_gcs_path_or_fail('p'), gcs.get_gcs_fuse_path(flags.FLAGS.xm_gcs_path),
          gcs.get_gs_path('/gcs/b/d'), gcs.is_gcs_path('b/d'), gcs.get_gcs_url('gs://b/d'))
    print(sorted(tensorboard.TensorboardProvider.get_tensorboard_job_args(
        'gs://b/logs', additional_args={'port': 7007}).items()))
    print(tensorboard.TensorboardProvider.get_tensorboard_packageable(60).spec())
    with xm_local.create_experiment(experiment_title='auxiliary') as experiment:
        [printer, sleeper] = experiment.package([
            xm.Packageable(xm.Binary(path=path), xm_local.Local.Spec())
            for path in ('./arg_printer.sh', './sleeper.sh')])
        helper = experiment.add(xm.AuxiliaryUnitJob(xm.Job(sleeper, xm_local.Local()),
                                                    termination_delay_secs=0))
        experiment.add(xm.Job(printer, xm_local.Local(), args=['done'],
                              env_vars={'OUTPUT_NAME': 'printer.txt'}))
    print(helper.get_status().state, experiment.work_units[2].get_status().state)


if __name__ == '__main__':
    app.run(main)
'''

LATE_BINDING_LAUNCHER = '''
from xmanager import xm
from xmanager import xm_local
from xmanager.cloud import utils

with xm_local.create_experiment('late bindings') as experiment:
    [printer] = experiment.package([xm.Packageable(
        xm.Binary(path='./arg_printer.sh'), xm_local.Local.Spec(),
        args={'chief': xm.ShellSafeArg(utils.get_workerpool_address('workerpool0'))})])
    experiment.add(xm.Job(printer, xm_local.Local(),
                          args={'master': utils.get_workerpool_address('workerpool0')},
                          env_vars={'OUTPUT_NAME': 'master.txt'}))
    try:
        experiment.add(xm.Job(printer, xm_local.Local(),
                              args={'peer': utils.get_workerpool_address('workerpool1')}))
    except NotImplementedError as refusal:
        print(refusal)
'''

COMPONENT_FILE = '''
import torchx.specs as specs


def greet(name: str, times: int = 1, image: str = '.') -> specs.AppDef:
    """Greets `name`, `times` times."""
    return specs.AppDef('greet', [specs.Role(
        'greeter', image=image, entrypoint='sh',
        args=['-c', f'for i in $(seq {times}); do echo hello {name}; done'])])
'''

RUN_COMPONENT_SCRIPT = '''
from torchx.runner import get_runner
from torchx.components import utils

runner = get_runner()
handle = runner.run_component('my_component.py:greet', ['--name', 'sortie', '--times', '2'],
                              'local_cwd')
print(runner.wait(handle).state)
print(''.join(runner.log_lines(handle, 'greeter')), end='')
touched = runner.run(utils.touch('touched.txt'), 'local_cwd')
print(runner.wait(touched).state)
'''


REMOTE_IMAGE_LAUNCHER = '''
from absl import app
from xmanager import xm
from xmanager import xm_local


def main(_):
    with xm_local.create_experiment(experiment_title='remote images') as experiment:
        for executor in (xm_local.Vertex(xm.JobRequirements(t4=1)), xm_local.Kubernetes()):
            [executable] = experiment.package([xm.Packageable(
                executable_spec=xm.Container(image_path='registry.invalid/p/trainer:1'),
                executor_spec=executor.Spec())])
            experiment.add(xm.Job(executable, executor, args={'lr': 0.1}))


if __name__ == '__main__':
    app.run(main)
'''

USES_TORCHX = '''#!/usr/bin/python3
import os
try:
    import torchx.distributed
    found = f'torchx.distributed {torchx.distributed.RANK}'
except Exception as error:  # pylint: disable=broad-except
    found = f'{type(error).__name__}: {error}'
with open(os.path.join(os.environ['SORTIE_LAUNCH_DIR'], 'unit.txt'), 'w') as out:
    print(os.environ.get('PYTHONPATH', '<unset>'), found, sep='\\n', file=out)
'''

TORCHX_UNIT_LAUNCHER = '''
from xmanager import xm
from xmanager import xm_local

with xm_local.create_experiment('real torchx') as experiment:
    [unit] = experiment.package([xm.Packageable(xm.Binary(path='./uses_torchx.py'),
                                                xm_local.Local.Spec())])
    experiment.add(xm.Job(unit, xm_local.Local()))
print(experiment.work_units[1].get_status().state)
'''

QUICKSTART_APP = '''
import sys

print(f"Hello, {sys.argv[1]}!")
'''

QUICKSTART_DIST_APP = '''
import torch
import torch.distributed as dist

dist.init_process_group(backend="gloo")
print(f"I am worker {dist.get_rank()} of {dist.get_world_size()}!")

a = torch.tensor([dist.get_rank()])
dist.all_reduce(a)
print(f"all_reduce output = {a}")
'''


class XmanagerLaunchTest(support.ScratchTestCase):

    def write(self, name, text, mode=0o644):
        path = os.path.join(self.scratch, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as out:
            out.write(textwrap.dedent(text))
        os.chmod(path, mode)
        return path

    def read(self, name):
        with open(os.path.join(self.scratch, name), encoding='utf-8') as text:
            return text.read()

    def remove_containers_of_the_apps(self):
        """The containers local_docker left of this test's apps (one that never started stays
        'created')."""
        for app in json.loads(self.run_command('sortie', 'list', '--json').stdout)['apps']:
            app_id = app['handle'].rsplit('/', 1)[-1]
            found = subprocess.run(['docker', 'ps', '-aq', '--filter',
                                    f'label=sortie.app_id={app_id}'],
                                   capture_output=True, text=True, check=True).stdout.split()
            if found:
                subprocess.run(['docker', 'rm', '--force', *found], capture_output=True,
                               check=True)

    def test_an_arg_printer_launcher_runs_its_jobs_for_real(self):
        self.write('arg_printer.sh', ARG_PRINTER, 0o755)
        self.write('launcher.py', ARG_PRINTER_LAUNCHER)
        result = self.run_command('sortie', 'launch', 'launcher.py', '--',
                                  '--output_name', 'out.txt', '--xm_wrap_late_bindings')
        self.assertEqual(result.stdout, 'local_arg_printer 2 SUCCEEDED\n')
        self.assertEqual(sorted(self.read('out.txt').splitlines()),
                         ['--learning_rate=0.01 --path=a b', '--learning_rate=0.1 --path=a b'])

    def test_a_job_generator_makes_one_work_unit_of_the_jobs_it_adds(self):
        self.write('arg_printer.sh', ARG_PRINTER, 0o755)
        self.write('launcher.py', GENERATOR_LAUNCHER)
        result = self.run_command('sortie', 'launch', 'launcher.py')
        self.assertEqual(result.stdout, '1 SUCCEEDED\n')
        self.assertEqual(self.read('server.txt'), '--peer=1_1_client\n')
        self.assertEqual(self.read('client.txt'), 'hello\n')

    def test_an_auxiliary_unit_is_stopped_once_the_work_units_end_and_contrib_helpers_run(self):
        self.write('arg_printer.sh', ARG_PRINTER, 0o755)
        self.write('sleeper.sh', SLEEPER, 0o755)
        self.write('launcher.py', AUXILIARY_LAUNCHER)
        lines = self.run_command('sortie', 'launch', 'launcher.py', '--',
                                 '--xm_gcs_path=gs://bucket/out').stdout.splitlines()
        self.assertEqual(lines[0], 'gs://bucket/out /gcs/bucket/out gs://b/d False '
                                   'https://console.cloud.google.com/storage/browser/b/d')
        self.assertEqual(lines[1], "[('host', '0.0.0.0'), ('load_fast', 'false'), "
                                   "('logdir', 'gs://b/logs'), ('port', 7007)]")
        self.assertIn("'base_image': 'tensorflow/tensorflow'", lines[2])
        self.assertIn("'commands': ['timeout 60s tensorboard']", lines[2])
        self.assertEqual(lines[3], 'CANCELLED SUCCEEDED')
        self.assertEqual(self.read('printer.txt'), 'done\n')
        self.assertEqual(self.read('sleeper.txt'), 'started\n')

    def test_a_flow_graph_launches_each_job_once_those_it_depends_on_succeeded(self):
        self.write('step.sh', STEP, 0o755)
        self.write('launcher.py', FLOW_LAUNCHER)
        result = self.run_command('sortie', 'launch', 'launcher.py')
        self.assertEqual(result.stdout, "['eval', 'final', 'preprocessing', 'train']\n")
        steps = self.read('steps.txt').split()
        self.assertEqual(steps[0], 'preprocessing')
        self.assertEqual(sorted(steps[1:3]), ['eval', 'train'])
        self.assertEqual(steps[3], 'final')
        # eval fails: final, which depends on it, is not launched and the graph stops.
        os.remove(os.path.join(self.scratch, 'steps.txt'))
        failed = self.run_command('sortie', 'launch', 'launcher.py', '--', 'fail', check=False)
        self.assertIn("['eval', 'preprocessing', 'train']", failed.stdout)
        self.assertNotIn('final', self.read('steps.txt'))

    def test_a_local_job_streams_its_output_to_the_terminal_when_asked(self):
        self.write('two_lines.sh', TWO_LINES, 0o755)
        self.write('launcher.py', STREAMED_LAUNCHER)
        result = self.run_command('sortie', 'launch', 'launcher.py')
        # Every line, in its order, before the with block is left, each prefixed with its role
        # and replica ('added' may come before or among them).
        lines = result.stdout.splitlines()
        self.assertEqual(lines[-1], 'left with')
        self.assertEqual([line for line in lines if line.startswith('two_lines_sh/')],
                         ['two_lines_sh/0 first x', 'two_lines_sh/0 second'])
        self.assertEqual(sorted(lines[:-1]), ['added', 'two_lines_sh/0 first x',
                                              'two_lines_sh/0 second'])

    def test_a_streamed_container_that_cannot_start_fails_the_script_saying_why(self):
        """The follower of its output ends with it, and the script exits 1 with the Engine's
        reason, every time (it aborted, exit 134, in 2 of 3 runs, the reason never printed)."""
        self.write('launcher.py', UNSTARTABLE_LAUNCHER)
        self.addCleanup(self.remove_containers_of_the_apps)
        for _ in range(3):
            result = self.run_command('sortie', 'launch', 'launcher.py', check=False)
            self.assertEqual(result.returncode, 1, result.stderr)
            self.assertRegex(result.stderr, r'ExperimentUnitFailedError: work unit \d+_1 ended '
                                            r'FAILED: .*/no/such/program')
            self.assertNotIn('terminate called', result.stderr)
            self.assertEqual(result.stdout, '')

    def test_a_workerpool_address_runs_as_the_rank0_host_on_a_local_executor(self):
        self.write('arg_printer.sh', ARG_PRINTER, 0o755)
        self.write('launcher.py', LATE_BINDING_LAUNCHER)
        result = self.run_command('sortie', 'launch', 'launcher.py')
        self.assertRegex(result.stdout, r"^get_workerpool_address\('workerpool1'\) outside "
                                        r"Vertex AI is not supported by sortie: only workerpool0")
        self.assertRegex(self.read('master.txt'),
                         r'^--chief=[\w.-]+:29500 --master=[\w.-]+:29500\n$')

    def test_an_xm_flag_sortie_cannot_honour_is_refused_naming_it(self):
        self.write('arg_printer.sh', ARG_PRINTER, 0o755)
        self.write('launcher.py', ARG_PRINTER_LAUNCHER)
        result = self.run_command('sortie', 'launch', 'launcher.py', '--', '--xm_use_kaniko',
                                  check=False)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn('--xm_use_kaniko is not supported by sortie', result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.scratch, 'args.txt')))

    def test_names_sortie_does_not_offer_are_refused_saying_what_to_use(self):
        self.write('refusals.py', REFUSALS_SCRIPT)
        lines = self.run_command('sortie', 'launch', 'refusals.py').stdout.splitlines()
        self.assertEqual(len(lines), 4)
        self.assertRegex(lines[0], r'^xmanager\.contrib\.parameter_controller is not supported '
                                   r'by sortie: ')
        self.assertRegex(lines[1], r'^xmanager\.cloud\.get_default_client is not supported by '
                                   r'sortie: .*TensorboardCapability')
        self.assertRegex(lines[2], r'^xmanager\.xm\.Importance is not supported by sortie: '
                                   r'.*priority')
        self.assertRegex(lines[3], r'^WorkUnit\.context is not supported by sortie: '
                                   r'.*experiment\.context\.annotations')

    def test_an_installed_xmanager_keeps_working_outside_sortie_launch(self):
        self.write('real/xmanager/__init__.py', 'REAL = True\n')
        self.write('which.py', 'import xmanager\nprint(hasattr(xmanager, "REAL"))\n')
        env = dict(self.env, PYTHONPATH=os.path.join(self.scratch, 'real') + ':' +
                   self.env.get('PYTHONPATH', ''))
        outside = subprocess.run(['/usr/bin/python3', 'which.py'], cwd=self.scratch, env=env,
                                 capture_output=True, text=True, timeout=60, check=True)
        self.assertEqual(outside.stdout, 'True\n')
        inside = subprocess.run(['sortie', 'launch', 'which.py'], cwd=self.scratch, env=env,
                                capture_output=True, text=True, timeout=60, check=True)
        self.assertEqual(inside.stdout, 'False\n')

    def test_the_units_of_a_launch_script_get_the_users_pythonpath_not_sorties(self):
        """The script imports sortie's xmanager; the unit it starts imports the real
        torchx.distributed of the user's PYTHONPATH, which sortie's compat torchx would hide."""
        self.write('real/torchx/__init__.py', '')
        self.write('real/torchx/distributed.py', 'RANK = 0\n')
        self.write('uses_torchx.py', USES_TORCHX, 0o755)
        self.write('launcher.py', TORCHX_UNIT_LAUNCHER)
        users = os.path.join(self.scratch, 'real') + ':' + self.env.get('PYTHONPATH', '')
        self.env['PYTHONPATH'] = users
        self.assertEqual(self.run_command('sortie', 'launch', 'launcher.py').stdout,
                         'SUCCEEDED\n')
        self.assertEqual(self.read('unit.txt'), f'{users}\ntorchx.distributed 0\n')
        del self.env['PYTHONPATH']
        self.assertEqual(self.run_command('sortie', 'launch', 'launcher.py').stdout,
                         'SUCCEEDED\n')
        self.assertEqual(self.read('unit.txt').splitlines(),
                         ['<unset>', "ModuleNotFoundError: No module named 'torchx'"])

    def test_a_torchx_component_file_runs_through_run_component(self):
        self.write('my_component.py', COMPONENT_FILE)
        self.write('run.py', RUN_COMPONENT_SCRIPT)
        result = self.run_command('sortie', 'launch', 'run.py')
        self.assertEqual(result.stdout, 'SUCCEEDED\nhello sortie\nhello sortie\nSUCCEEDED\n')
        self.assertTrue(os.path.exists(os.path.join(self.scratch, 'touched.txt')))

    def test_a_remote_image_for_vertex_or_kubernetes_is_not_pulled_and_runs_as_built(self):
        # registry.invalid cannot resolve: pulling it locally would fail the launch.
        self.write('launcher.py', REMOTE_IMAGE_LAUNCHER)
        self.env['GOOGLE_CLOUD_PROJECT'] = 'my-project'
        result = self.run_command('sortie', 'launch', '--dryrun', 'launcher.py')
        self.assertNotIn('pulling', result.stderr)
        vertex, kubernetes = [json.loads(line) for line in result.stdout.splitlines()]
        [pool] = vertex['jobSpec']['workerPoolSpecs']
        self.assertEqual(pool['containerSpec']['imageUri'], 'registry.invalid/p/trainer:1')
        self.assertNotIn('command', pool['containerSpec'])
        self.assertEqual(pool['containerSpec']['args'], ['--lr=0.1'])
        [container] = kubernetes['items'][0]['spec']['template']['spec']['containers']
        self.assertEqual(container['image'], 'registry.invalid/p/trainer:1')
        self.assertNotIn('command', container)
        self.assertEqual(container['args'], ['--lr=0.1'])

    def test_the_torchx_quickstart_runs_with_sortie_in_place_of_torchx(self):
        # Debian's python3 (with torch) before another python3, as in the quickstart's
        # environment; this installation's sortie before any other.
        bin_dir = os.path.dirname(shutil.which('sortie', path=self.env['PATH']))
        self.env['PATH'] = os.pathsep.join([bin_dir, '/usr/bin', self.env['PATH']])
        self.write('my_app.py', QUICKSTART_APP)
        self.write('dist_app.py', QUICKSTART_DIST_APP)
        self.write('my_component.py', COMPONENT_FILE)
        hello = self.run_command('sortie', 'run', '--log', '--scheduler', 'local_cwd',
                                 'utils.python', '--script', 'my_app.py', 'your name')
        self.assertIn('Hello, your name!', hello.stdout)
        greet = self.run_command('sortie', 'run', '--log', '--scheduler', 'local_cwd',
                                 'my_component.py:greet', '--name', 'you')
        self.assertIn('greeter/0 hello you\n', greet.stdout)
        ddp = self.run_command('sortie', 'run', '--log', '--scheduler', 'local_cwd', 'dist.ddp',
                               '-j', '1x2', '--script', 'dist_app.py', timeout=240)
        self.assertIn('I am worker 1 of 2!', ddp.stdout)
        self.assertIn('all_reduce output = tensor([1])', ddp.stdout)

    def test_a_component_file_refuses_bad_arguments_naming_them(self):
        self.write('my_component.py', COMPONENT_FILE)
        missing = self.run_command('sortie', 'run', 'my_component.py:greet', '--times', '2',
                                   check=False)
        self.assertEqual(missing.returncode, 2)
        self.assertIn('the following arguments are required: --name', missing.stderr)
        unknown = self.run_command('sortie', 'run', 'my_component.py:nope', check=False)
        self.assertEqual(unknown.returncode, 2)
        self.assertIn('my_component.py defines no function \'nope\' (its functions: greet)',
                      unknown.stderr)


if __name__ == '__main__':
    support.main()
