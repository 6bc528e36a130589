"""examples/python/cifar10/vertex_launcher.py, a cifar10-style XManager launcher, dry-runs a 2x2 sweep of
job groups through `sortie launch --dryrun`, and every Vertex AI request body passes the schema
validator of the Vertex plugin's tests (tests/vertex/validate). Exit 3 of the validator (schema
not fetched, packaging/engines/vertex_validators.sh) is a skip, or a failure under CI=true."""

import json
import os
import subprocess
import sys
import unittest

import support
from sortie import xm
from sortie import xm_cloud
from sortie import xm_local

VALIDATOR = os.path.join(support.SOURCE_DIR, 'tests', 'vertex', 'validate',
                         'validate_custom_job.py')


class VertexDryRunTest(support.ScratchTestCase):

    def test_every_request_of_the_sweep_is_a_valid_custom_job(self):
        directory = self.copy_example('cifar10')
        self.env['GOOGLE_CLOUD_PROJECT'] = 'my-project'
        # The local stand-in for python:3.11-slim (packaging/engines/python_image_up.sh).
        self.env['SORTIE_PYTHON_BASE_IMAGE'] = 'sortie-test/python:3.11'
        result = self.run_command('sortie', 'launch', '--dryrun',
                                  os.path.join(directory, 'vertex_launcher.py'), timeout=600)
        bodies = [json.loads(line) for line in result.stdout.splitlines()]
        self.assertEqual(len(bodies), 4)  # one CustomJob per work unit: a group is one app
        for body in bodies:
            pools = body['jobSpec']['workerPoolSpecs']
            self.assertEqual(len(pools), 2)  # trainer and evaluator, one pool each
            self.assertEqual(pools[0]['machineSpec']['acceleratorType'], 'NVIDIA_TESLA_T4')
            # Built here, so pushed to the registry: never the local tag (issue 24, item 3).
            self.assertEqual(
                [pool['containerSpec']['imageUri'].rsplit(':', 1)[0] for pool in pools],
                [f'us-docker.pkg.dev/my-project/cifar10/{role}' for role in ('trainer',
                                                                            'evaluator')])
        trainer_args = sorted(' '.join(body['jobSpec']['workerPoolSpecs'][0]['containerSpec']
                                       ['args']) for body in bodies)
        self.assertEqual(trainer_args, sorted(
            f'--learning_rate={lr} --batch_size={bs}'
            for lr in ('0.1', '0.01') for bs in ('64', '128')))
        paths = []
        for index, body in enumerate(bodies):
            paths.append(os.path.join(self.scratch, f'body{index}.json'))
            with open(paths[-1], 'w') as out:
                json.dump(body, out)
        validated = self.run_command(sys.executable, VALIDATOR, *paths, check=False)
        if validated.returncode == 3 and os.environ.get('CI') != 'true':
            raise unittest.SkipTest(validated.stderr.strip())
        self.assertEqual(validated.returncode, 0, validated.stdout + validated.stderr)
        self.assertEqual(self.run_command('sortie', 'experiments', 'list').stdout.count('cifar10'),
                         0)  # a dry run records nothing

    def test_an_image_built_here_without_a_registry_to_push_to_is_refused(self):
        directory = self.copy_example('cifar10')
        os.environ.update(GOOGLE_CLOUD_PROJECT='my-project', SORTIE_LAUNCH_DRYRUN='1',
                          SORTIE_PYTHON_BASE_IMAGE='sortie-test/python:3.11')
        with xm_local.create_experiment('no push') as experiment:
            [trainer] = experiment.package([xm.python_container(
                xm_local.Vertex.Spec(), path=os.path.join(directory, 'trainer'),
                entrypoint=xm.ModuleName('trainer.train'))])
            with self.assertRaisesRegex(ValueError, "was built on this machine and Vertex AI "
                                                    "cannot pull it; .*push_image_tag"):
                experiment.add(xm.Job(trainer, xm_local.Vertex()))

    def test_push_image_tag_of_the_executor_spec_names_the_image_vertex_runs(self):
        directory = self.copy_example('cifar10')
        os.environ.update(GOOGLE_CLOUD_PROJECT='my-project', SORTIE_LAUNCH_DRYRUN='1',
                          SORTIE_PYTHON_BASE_IMAGE='sortie-test/python:3.11')
        tag = 'us-docker.pkg.dev/my-project/cifar10/trainer:v1'
        with xm_local.create_experiment('push') as experiment:
            [trainer] = experiment.package([xm.python_container(
                xm_local.Vertex.Spec(push_image_tag=tag), path=os.path.join(directory, 'trainer'),
                entrypoint=xm.ModuleName('trainer.train'))])
            unit = experiment.add(xm.Job(trainer, xm_local.Vertex()))
        [request] = unit.dryrun_requests
        payload = json.loads(request)
        body = payload.get('document', payload['request'])
        self.assertEqual(
            body['jobSpec']['workerPoolSpecs'][0]['containerSpec']['imageUri'], tag)

    def test_a_workerpool_address_is_resolved_from_cluster_spec_in_the_replica(self):
        directory = self.copy_example('cifar10')
        os.environ.update(GOOGLE_CLOUD_PROJECT='my-project', SORTIE_LAUNCH_DRYRUN='1',
                          SORTIE_PYTHON_BASE_IMAGE='sortie-test/python:3.11')
        chief = xm_cloud.get_workerpool_address('workerpool0')
        self.assertEqual(chief, '%objectname(workerpool0)%')  # XManager's late binding
        with xm_local.create_experiment('late bindings') as experiment:
            [trainer] = experiment.package([xm.python_container(
                xm_local.Vertex.Spec(push_image_tag='us-docker.pkg.dev/p/r/trainer:v1'),
                path=os.path.join(directory, 'trainer'),
                entrypoint=xm.ModuleName('trainer.train'))])
            unit = experiment.add(xm.Job(trainer, xm_local.Vertex(), args={
                'master': chief, 'peer': xm_cloud.get_workerpool_address('workerpool1')},
                env_vars={'CHIEF': f'http://{chief}/'}))
        [request] = unit.dryrun_requests
        payload = json.loads(request)
        container = payload.get('document', payload['request'])['jobSpec'][
            'workerPoolSpecs'][0]['containerSpec']
        command = container['command']
        # The wrapper, then the image's own ENTRYPOINT (sortie's python_container launcher).
        self.assertEqual(command[:2] + command[3:], ['/bin/sh', '-c', 'sortie-late-bindings',
                                                     '/bin/sh', '/sortie/entrypoint.sh'])
        self.assertEqual(container['args'], ['--master=%objectname(workerpool0)%',
                                             '--peer=%objectname(workerpool1)%'])
        # Run the wrapper as a replica would, with a program that prints what it is given.
        printer = ['/bin/sh', '-c', 'printf "%s\\n" "$CHIEF" "$@"', 'printer']
        spec = json.dumps({'cluster': {'workerpool0': ['chief-0:2222'],
                                       'workerpool1': ['w1-0:2222', 'w1-1:2222']},
                           'task': {'type': 'workerpool0', 'index': 0}})
        ran = subprocess.run(command[:4] + printer + container['args'], capture_output=True,
                             text=True, env={'PATH': os.environ['PATH'], 'CLUSTER_SPEC': spec,
                                             'CHIEF': f'http://{chief}/'}, check=True)
        self.assertEqual(ran.stdout.splitlines(), ['http://chief-0:2222/',
                                                   '--master=chief-0:2222', '--peer=w1-0:2222'])
        spec_without_pool1 = json.dumps({'cluster': {'workerpool0': ['chief-0:2222']}})
        failed = subprocess.run(command[:4] + printer + container['args'], capture_output=True,
                                text=True, env={'PATH': os.environ['PATH'],
                                                'CLUSTER_SPEC': spec_without_pool1})
        self.assertEqual(failed.returncode, 1)
        self.assertIn("CLUSTER_SPEC names no worker pool 'workerpool1'", failed.stderr)

    def test_a_late_binding_for_an_image_not_built_here_is_refused_naming_it(self):
        os.environ.update(GOOGLE_CLOUD_PROJECT='my-project', SORTIE_LAUNCH_DRYRUN='1')
        with xm_local.create_experiment('late bindings') as experiment:
            [trainer] = experiment.package([xm.container(
                xm_local.Vertex.Spec(), image_path='registry.invalid/p/trainer:1')])
            with self.assertRaisesRegex(ValueError, "late binding .*'registry.invalid/p/"
                                                    "trainer:1' is not built here"):
                experiment.add(xm.Job(trainer, xm_local.Vertex(), args={
                    'master': xm_cloud.get_workerpool_address('workerpool0')}))


if __name__ == '__main__':
    support.main()
