"""XManager's examples/ launchers under `sortie launch`, one launch script of ours each
(tests/python/xmanager_examples/NAME/launcher.py): the same imports, calls and structure as
XManager's, with offline stand-ins for what the internet would give (images, a registry). A
launcher runs for real on local executors and by dry run on Vertex AI and Kubernetes, its
requests checked against the official schemas (tests/vertex/validate, tests/kubernetes/validate;
a validator whose packages are missing skips, and fails under CI=true). Where a launcher cannot
run here, its test shows the exact reason; docs/python.md lists them per launcher."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest
import urllib.request

import support

EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'xmanager_examples')
VERTEX_VALIDATOR = os.path.join(support.SOURCE_DIR, 'tests', 'vertex', 'validate',
                                'validate_custom_job.py')
K8S_VALIDATOR = os.path.join(support.SOURCE_DIR, 'tests', 'kubernetes', 'validate')
K8S_MODULES = os.environ.get('SORTIE_K8S_VALIDATORS_DIR', os.path.join(
    os.environ.get('XDG_CACHE_HOME', os.path.expanduser('~/.cache')), 'sortie',
    'k8s-validators')) + '/node_modules'
# Offline stand-in for the deep learning base images XManager's launchers build on: what the
# packager needs of them is a Python, which the local python image has (the image is tagged
# with their name in the local Docker Engine only).
BASE_IMAGE_STAND_IN = 'sortie-test/python:3.11'


def free_port():
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        return probe.getsockname()[1]


class XmanagerExamplesTest(support.ScratchTestCase):

    def setUp(self):
        super().setUp()
        self.env['GOOGLE_CLOUD_PROJECT'] = 'my-project'
        self.env['XDG_CONFIG_HOME'] = os.path.join(self.scratch, 'config')

    def example(self, name):
        directory = os.path.join(self.scratch, name)
        shutil.copytree(os.path.join(EXAMPLES, name), directory)
        return directory

    def launch(self, directory, *flags, check=True, dryrun=True, timeout=300):
        words = ['sortie', 'launch'] + (['--dryrun'] if dryrun else []) + ['launcher.py']
        result = subprocess.run(words + (['--'] + list(flags) if flags else []), cwd=directory,
                                env=self.env, capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            self.fail(f'{" ".join(words)} exited {result.returncode}\n{result.stderr}')
        return result

    def push_registry_once(self, directory, tag, scheduler='vertex', option='push_image_tag',
                           more=''):
        """The registry a locally built image is pushed to for Vertex AI (push_image_tag) or
        Kubernetes (image_repo), given once in the launcher's .sortieconfig (trusted, since a
        push reaches out), with `more` lines of that section."""
        with open(os.path.join(directory, '.sortieconfig'), 'w', encoding='utf-8') as config:
            config.write(f'[{scheduler}]\n{option} = {tag}\n{more}')
        subprocess.run(['sortie', 'config', 'trust'], cwd=directory, env=self.env, check=True,
                       capture_output=True)

    def stand_in_base_image(self, name):
        subprocess.run(['docker', 'tag', BASE_IMAGE_STAND_IN, name], check=True)

    def validate_custom_jobs(self, bodies):
        paths = []
        for index, body in enumerate(bodies):
            paths.append(os.path.join(self.scratch, f'custom_job{index}.json'))
            with open(paths[-1], 'w', encoding='utf-8') as out:
                json.dump(body, out)
        validated = self.run_command(sys.executable, VERTEX_VALIDATOR, *paths, check=False)
        if validated.returncode == 3 and os.environ.get('CI') != 'true':
            raise unittest.SkipTest(validated.stderr.strip())
        self.assertEqual(validated.returncode, 0, validated.stdout + validated.stderr)

    def validate_manifests(self, documents):
        if not (shutil.which('node') and os.path.isdir(os.path.join(K8S_MODULES,
                                                                    'kubernetes-models'))):
            if os.environ.get('CI') == 'true':
                self.fail(f'node or the validator packages in {K8S_MODULES} are missing')
            raise unittest.SkipTest('node or the Kubernetes validator packages are missing '
                                    '(packaging/engines/k8s_validators.sh)')
        validated = subprocess.run(
            ['node', os.path.join(K8S_VALIDATOR, 'validate_manifests.mjs'), '--modules',
             K8S_MODULES, '-'], input='\n'.join(json.dumps(d) for d in documents),
            capture_output=True, text=True, timeout=300)
        self.assertEqual(validated.returncode, 0, validated.stdout + validated.stderr)

    def assert_tf_configs_address_their_pods(self, manifest, expected_tasks):
        """Each Job's TF_CONFIG lists every task at the pod name of its job's replica 0
        (hostname.subdomain) and names the job's own task."""
        jobs = [item for item in manifest['items'] if item['kind'] == 'Job']
        pod_names, configs = {}, {}
        for job in jobs:
            role = job['metadata']['annotations']['sortie.dev/role-name']
            pod = job['spec']['template']['spec']
            pod_names[role] = f"{job['metadata']['name']}-0.{pod['subdomain']}:2222"
            [container] = pod['containers']
            env = {var['name']: var.get('value') for var in container['env']}
            configs[role] = json.loads(env['TF_CONFIG'])
        self.assertEqual({role: (c['task']['type'], c['task']['index'])
                          for role, c in configs.items()}, expected_tasks)
        for config in configs.values():
            self.assertEqual(config['cluster'], {
                task_type: [pod_names[role] for role, task in sorted(
                    expected_tasks.items(), key=lambda entry: entry[1][1])
                    if task[0] == task_type]
                for task_type in {task[0] for task in expected_tasks.values()}})

    def test_local_container_links_publishes_its_server_port_on_this_machine(self):
        directory = self.example('local_container_links')
        port = free_port()
        launch = subprocess.Popen(['sortie', 'launch', 'launcher.py', '--',
                                   f'--host_port={port}'], cwd=directory, env=self.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            # The server answers from this machine's port with what it read from the store,
            # which it reached by the store's full job name.
            served = None
            deadline = time.monotonic() + 240
            while served is None and time.monotonic() < deadline and launch.poll() is None:
                try:
                    with urllib.request.urlopen(f'http://127.0.0.1:{port}/', timeout=5) as page:
                        served = page.read().decode()
                except OSError:
                    time.sleep(0.5)
            self.assertEqual(served, 'stored value\n', launch.poll() and launch.stderr.read())
        finally:
            self.run_command('sortie', 'experiments', 'cancel', '1', check=False)
            _, stderr = launch.communicate(timeout=120)
        self.assertIn('work unit 1_1 ended CANCELLED', stderr)
        self.assertNotIn('sortie-workspace', stderr)  # the images run as built
        shown = self.run_command('sortie', 'experiments', 'show', '1').stdout
        self.assertIn('redis_host=1_1_redis', shown)

    def test_k8s_launchers_refuse_a_trainer_built_here_naming_the_image(self):
        # As written (no --image_path) the trainer is built here: the cluster cannot pull it.
        self.stand_in_base_image('gcr.io/deeplearning-platform-release/tf2-gpu.2-6')
        for name in ('k8s_multiworker', 'k8s_ps'):
            directory = self.example(name)
            result = self.launch(directory, check=False)
            self.assertNotEqual(result.returncode, 0)
            self.assertRegex(result.stderr, r"image 'sortie-xm/[^']+' was built on this "
                                            r"machine and the cluster cannot pull it")
            self.assertIn('the kubernetes run option image_repo', result.stderr)

    def test_k8s_launchers_run_a_trainer_built_here_pushed_to_image_repo(self):
        # As written, with the registry given once: the pods pull the pushed trainer, and no
        # manifest names the local tag.
        self.stand_in_base_image('gcr.io/deeplearning-platform-release/tf2-gpu.2-6')
        repo = '127.0.0.1:5000/sortie-xm-examples'
        for name, tasks in (
                ('k8s_multiworker', {'worker-0': ('worker', 0), 'worker-1': ('worker', 1),
                                     'worker-2': ('worker', 2)}),
                ('k8s_ps', {'chief': ('chief', 0), 'ps-0': ('ps', 0), 'worker-0': ('worker', 0),
                            'worker-1': ('worker', 1)})):
            directory = self.example(name)
            self.push_registry_once(directory, repo, 'kubernetes', 'image_repo')
            result = self.launch(directory)
            [manifest] = [json.loads(line) for line in result.stdout.splitlines()]
            self.assertNotIn('sortie-xm/', json.dumps(manifest).replace(repo + '/', ''))
            images = {container['image'] for item in manifest['items'] if item['kind'] == 'Job'
                      for container in item['spec']['template']['spec']['containers']}
            self.assertEqual(len(images), 1, images)
            self.assertRegex(images.pop(), '^' + repo + '/image:[0-9a-f]+$')
            self.assert_tf_configs_address_their_pods(manifest, tasks)
            self.validate_manifests([manifest])
            # The usage line's --image_path is no flag of the launcher, here as under XManager.
            unknown = self.launch(directory, '--image_path=gcr.io/path/to/image/tag', check=False)
            self.assertIn("Unknown command line flag 'image_path'", unknown.stderr)

    def test_dockerfile_builds_here_and_runs_the_pushed_image_on_vertex(self):
        directory = self.example('dockerfile')
        self.push_registry_once(directory, 'us-docker.pkg.dev/my-project/xm/printer:${app_id}')
        result = self.launch(directory)
        [body] = [json.loads(line) for line in result.stdout.splitlines()]
        [pool] = body['jobSpec']['workerPoolSpecs']
        self.assertRegex(pool['containerSpec']['imageUri'],
                         r'^us-docker\.pkg\.dev/my-project/xm/printer:')
        self.assertEqual(pool['containerSpec']['args'], ['--a=1', '--b=2', '--c=3', '--d=4'])
        self.assertIn({'name': 'FOO', 'value': 'bar'}, pool['containerSpec']['env'])
        self.validate_custom_jobs([body])

    def test_cifar10_tensorflow_runs_each_trial_with_gpus_and_a_tensorboard(self):
        directory = self.example('cifar10_tensorflow')
        self.stand_in_base_image('gcr.io/deeplearning-platform-release/tf2-gpu.2-6')
        self.env['GOOGLE_CLOUD_BUCKET_NAME'] = 'gs://bucket'
        tensorboard = 'projects/1/locations/us-central1/tensorboards/2'
        # Vertex AI writes a TensorBoard as the job's service account: without one it is
        # refused by name.
        self.push_registry_once(directory, 'us-docker.pkg.dev/my-project/xm/cifar10:${app_id}')
        unwritable = self.launch(directory, f'--tensorboard={tensorboard}', check=False)
        self.assertIn("run option 'tensorboard' needs run option 'service_account'",
                      unwritable.stderr)
        account = 'xmanager@my-project.iam.gserviceaccount.com'
        self.push_registry_once(directory, 'us-docker.pkg.dev/my-project/xm/cifar10:${app_id}',
                                more=f'service_account = {account}\n')
        result = self.launch(directory, f'--tensorboard={tensorboard}')
        bodies = [json.loads(line) for line in result.stdout.splitlines()]
        self.assertEqual([body['jobSpec']['workerPoolSpecs'][0]['containerSpec']['args']
                          for body in bodies],
                         [['--learning_rate=0.1'], ['--learning_rate=0.001']])
        for index, body in enumerate(bodies):
            [pool] = body['jobSpec']['workerPoolSpecs']
            self.assertEqual(pool['machineSpec']['acceleratorType'], 'NVIDIA_TESLA_T4')
            self.assertEqual(pool['machineSpec']['acceleratorCount'], 2)
            self.assertEqual(body['jobSpec']['tensorboard'], tensorboard)
            self.assertEqual(body['jobSpec']['serviceAccount'], account)
            self.assertEqual(body['jobSpec']['baseOutputDirectory']['outputUriPrefix'],
                             f'gs://bucket/0/{index}')
        self.validate_custom_jobs(bodies)
        # Without --tensorboard it would create one through the Vertex AI API.
        refused = self.launch(directory, check=False)
        self.assertIn('xmanager.cloud.get_default_client is not supported by sortie',
                      refused.stderr)

    def test_cifar10_torch_xla_runs_on_a_tpu_or_gpus(self):
        directory = self.example('cifar10_torch_xla')
        tpu = self.launch(directory, '--image_path=registry.invalid/xla:1', '--platform=tpu',
                          '--cores=8')
        self.assertIn('Launch completed and successful.', tpu.stdout)
        [tpu_body] = [json.loads(line) for line in tpu.stdout.splitlines()
                      if line.startswith('{')]
        [pool] = tpu_body['jobSpec']['workerPoolSpecs']
        self.assertEqual(pool['machineSpec']['acceleratorType'], 'TPU_V3')
        self.assertEqual(pool['containerSpec']['imageUri'], 'registry.invalid/xla:1')
        self.assertEqual(pool['containerSpec']['args'],
                         ['--platform=tpu', '--batch_size=64', '--learning_rate=0.1'])
        gpu = self.launch(directory, '--image_path=registry.invalid/xla:1', '--platform=gpu',
                          '--cores=2')
        [gpu_body] = [json.loads(line) for line in gpu.stdout.splitlines()
                      if line.startswith('{')]
        self.assertEqual(gpu_body['jobSpec']['workerPoolSpecs'][0]['machineSpec'][
            'acceleratorCount'], 2)
        self.validate_custom_jobs([tpu_body, gpu_body])

    def test_local_arg_printer_builds_with_bazel_and_runs_here(self):
        if shutil.which('bazel') is None:
            if os.environ.get('CI') == 'true':
                self.fail('bazel is missing (packaging/engines/bazel_up.sh)')
            raise unittest.SkipTest('bazel is missing (packaging/engines/bazel_up.sh)')
        directory = os.path.join(self.scratch, 'workspace')
        shutil.copytree(os.path.join(support.SOURCE_DIR, 'examples', 'bazel'), directory)
        shutil.copy(os.path.join(EXAMPLES, 'local_arg_printer', 'launcher.py'), directory)
        # As the local_container_links README says: --xm_bazel_command names the program that
        # runs Bazel, here a wrapper on PATH that notes each call.
        tools = os.path.join(self.scratch, 'tools')
        os.mkdir(tools)
        calls = os.path.join(self.scratch, 'bazelisk-calls')
        with open(os.path.join(tools, 'bazelisk'), 'w', encoding='utf-8') as wrapper:
            wrapper.write(f'#!/bin/sh\necho "$@" >> {calls}\nexec bazel "$@"\n')
        os.chmod(os.path.join(tools, 'bazelisk'), 0o755)
        self.env['PATH'] = tools + os.pathsep + self.env['PATH']
        self.launch(directory, '--xm_bazel_command=bazelisk', dryrun=False, timeout=600)
        with open(calls, encoding='utf-8') as called:
            self.assertTrue(any('build' in line.split() for line in called))
        shown = self.run_command('sortie', 'experiments', 'show', '1').stdout
        self.assertIn('work unit 1: SUCCEEDED', shown)
        [handle] = [app['handle'] for app in json.loads(
            self.run_command('sortie', 'list', '--json').stdout)['apps']]
        self.assertEqual(self.run_command('sortie', 'log', handle).stdout,
                         'hello/0 hello from bazel, HELLO_NAME=local_arg_printer\n')

    def test_cifar10_torch_gives_every_node_the_address_of_worker_pool_0(self):
        directory = self.example('cifar10_torch')
        self.stand_in_base_image('gcr.io/deeplearning-platform-release/pytorch-gpu.1-12')
        self.push_registry_once(directory, 'us-docker.pkg.dev/my-project/xm/cifar10:${app_id}')
        result = self.launch(directory, '--nodes=2')
        self.assertTrue(result.stdout.endswith('Waiting for async launches to return values...\n'
                                               'Experiment completed.\n'), result.stdout)
        bodies = [json.loads(line) for line in result.stdout.splitlines()
                  if line.startswith('{')]
        self.assertEqual(len(bodies), 4)  # a job group of two nodes per trial
        for body in bodies:
            pools = body['jobSpec']['workerPoolSpecs']
            self.assertEqual([pool['containerSpec']['args'][0] for pool in pools],
                             ['--master_addr_port=%objectname(workerpool0)%'] * 2)
            self.assertEqual([pool['containerSpec']['args'][-1] for pool in pools],
                             ['--rank=0', '--rank=1'])
        self.validate_custom_jobs(bodies)

    def test_cifar10_tensorflow_tpu_needs_the_internet_to_build_its_image(self):
        directory = self.example('cifar10_tensorflow_tpu')
        result = self.launch(directory, '--tensorboard=projects/1/locations/l/tensorboards/2',
                             check=False)
        # Its image starts from ubuntu:20.04 and downloads the TPU runtime while it builds.
        self.assertIn('image ubuntu:20.04 is not local and pulling it failed', result.stderr)
        check = ('from xmanager.cloud import build_image\n'
                 'from xmanager.contrib import tpu\n'
                 'print(build_image.default_steps("cifar10", use_deep_module=False))\n'
                 'print(tpu.tpuvm_docker_instructions()[0])\n')
        with open(os.path.join(directory, 'steps.py'), 'w', encoding='utf-8') as script:
            script.write(check)
        steps, first = subprocess.run(['sortie', 'launch', 'steps.py'], cwd=directory,
                                      env=self.env, capture_output=True, text=True,
                                      check=True).stdout.splitlines()
        self.assertEqual(steps, "['ENV LANG=C.UTF-8', 'COPY cifar10/ /cifar10', "
                                "'WORKDIR /cifar10']")
        self.assertRegex(first, r'^RUN wget https://storage\.googleapis\.com/.*/libtpu\.so ')

    def test_dopamine_needs_the_internet_to_build_its_image(self):
        directory = self.example('dopamine')
        self.env['GOOGLE_CLOUD_BUCKET_NAME'] = 'gs://bucket'
        self.env.pop('SORTIE_PYTHON_BASE_IMAGE', None)
        result = self.launch(directory, '--tensorboard=projects/1/locations/l/tensorboards/2',
                             check=False)
        # The default base image comes from Docker Hub, and its steps run apt and pip.
        self.assertRegex(result.stderr, r'image python:[\w.-]+ is not local and pulling it '
                                        r'failed')

    def test_local_container_gpu_runs_here_and_fails_for_want_of_gpus(self):
        directory = self.example('local_container_gpu')
        self.stand_in_base_image('gcr.io/deeplearning-platform-release/tf2-gpu.2-6')
        result = self.launch(directory, dryrun=False, check=False)
        self.assertIn('work unit 1_1 ended FAILED', result.stderr)
        [handle] = [app['handle'] for app in json.loads(
            self.run_command('sortie', 'list', '--json').stdout)['apps']]
        self.assertIn('could not select device driver "nvidia" with capabilities: [[gpu]]',
                      self.run_command('sortie', 'status', handle).stdout)

    def test_k8s_tensorboard_needs_the_internet_for_the_tensorboard_image(self):
        directory = self.example('k8s_tensorboard')
        self.stand_in_base_image('gcr.io/deeplearning-platform-release/tf2-gpu.2-6')
        result = self.launch(directory, '--tensorboard_log_dir=gs://bucket/logs', check=False)
        self.assertIn('image tensorflow/tensorflow is not local and pulling it failed',
                      result.stderr)

    def test_parameter_controller_and_vizier_are_refused_saying_what_they_need(self):
        controller = self.launch(self.example('parameter_controller'), check=False)
        self.assertIn("xmanager.contrib.parameter_controller is not supported by sortie: its "
                      "controller is a job on the cluster that reattaches to the experiment "
                      "through XManager's database", controller.stderr)
        # The vizier launcher stops at its first import, google.cloud.aiplatform_v1beta1 (not
        # installed: the internet); sortie refuses its next, xmanager.vizier, by name.
        directory = self.example('vizier')
        vizier = self.launch(directory, check=False)
        self.assertIn("ModuleNotFoundError: No module named 'google'", vizier.stderr)
        with open(os.path.join(directory, 'launcher.py'), encoding='utf-8') as launcher:
            imports = [line for line in launcher if line.startswith(('from ', 'import '))]
        self.assertEqual(imports[1], 'from google.cloud import aiplatform_v1beta1 as aip\n')
        with open(os.path.join(directory, 'vizier_import.py'), 'w', encoding='utf-8') as script:
            script.write('from xmanager.vizier import vizier_cloud\n')
        refused = subprocess.run(['sortie', 'launch', 'vizier_import.py'], cwd=directory,
                                 env=self.env, capture_output=True, text=True)
        self.assertIn('xmanager.vizier is not supported by sortie: its studies run on Vertex AI '
                      'Vizier, a Google Cloud service', refused.stderr)


if __name__ == '__main__':
    support.main()
