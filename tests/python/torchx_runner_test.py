"""A TorchX-style runner script (examples/python/torchx_echo.py) runs with only its imports
changed, and the runner shares the CLI's store both ways."""

import json
import os
import tempfile

import support
from sortie import specs
from sortie.components.dist import ddp
from sortie.runner import get_runner


class TorchxRunnerTest(support.ScratchTestCase):

    def test_example_prints_hi_from_an_app_and_a_component(self):
        script = self.copy_example('torchx_echo.py')
        result = self.run_command('/usr/bin/python3', script)
        self.assertEqual(result.stdout, 'hi\nSUCCEEDED\nhi\n')

    def test_cli_sees_python_apps_and_python_sees_cli_apps(self):
        runner = get_runner()
        app = specs.AppDef('fromPython', [specs.Role('main', image='', entrypoint='true')])
        handle = runner.run(app, 'local_cwd')
        self.assertEqual(runner.wait(handle).state, specs.AppState.SUCCEEDED)
        listed = json.loads(self.run_command('sortie', 'list', '--json').stdout)
        self.assertIn(handle, json.dumps(listed))

        cli_handle = self.run_command('sortie', 'run', '--wait', 'utils.echo', '--msg',
                                      'from the CLI').stdout.splitlines()[0]
        self.assertIn(cli_handle, [app.app_handle for app in runner.list('local_cwd')])
        self.assertEqual(list(runner.log_lines(cli_handle, 'echo')), ['from the CLI\n'])

    def test_describe_gives_back_the_app(self):
        runner = get_runner()
        app = specs.AppDef('described', [specs.Role(
            'main', image='', entrypoint='true', args=['--rank', specs.macros.replica_id],
            env={'A': '1'}, resource=specs.Resource(cpu=1, gpu=0, memMB=64))])
        handle = runner.run(app, 'local_cwd')
        runner.wait(handle)
        described = runner.describe(handle)
        self.assertEqual(described.roles[0].args, ['--rank', '${replica_id}'])
        self.assertEqual(described.roles[0].env, {'A': '1'})
        self.assertEqual(described.roles[0].resource.memMB, 64)

    def test_named_resources_list_and_answer_in_and_an_unknown_name_is_a_key_error(self):
        names = list(specs.named_resources)
        self.assertIn('cpu.small', names)
        self.assertEqual(len(specs.named_resources), len(names))
        self.assertIn('gpu.small', specs.named_resources)
        self.assertNotIn('no.such.resource', specs.named_resources)
        with self.assertRaisesRegex(KeyError, "no named resource 'cpu.smal'; did you mean "
                                              "'cpu.small'"):
            specs.named_resources['cpu.smal']
        small = specs.named_resources['cpu.small']
        self.assertEqual(small.spec(), 'cpu.small')
        self.assertGreater(small.cpu, 0)
        self.assertEqual(specs.get_named_resources('cpu.small'), small)

    def test_ddp_takes_torchxs_run_name_and_refuses_an_experiment_name(self):
        self.assertEqual(ddp(script='train.py', name='/trainer').name, 'trainer')
        self.assertEqual(ddp(script='train.py').name, ddp(script='train.py', name='/').name)
        with self.assertRaisesRegex(NotImplementedError, r"dist\.ddp\(name='exp/run'\) is not "
                                                         r'supported by sortie'):
            ddp(script='train.py', name='exp/run')

    def test_log_lines_filters_by_regex_and_stream(self):
        runner = get_runner()
        app = specs.AppDef('logs', [specs.Role(
            'main', image='', entrypoint='sh',
            args=['-c', 'echo one; echo two; echo three >&2'])])
        handle = runner.run(app, 'local_cwd')
        runner.wait(handle)
        self.assertEqual(list(runner.log_lines(handle, 'main', regex='^t')), ['two\n', 'three\n'])
        self.assertEqual(list(runner.log_lines(handle, 'main', streams='stderr')), ['three\n'])

    def test_log_lines_tails_a_running_app_until_it_ends(self):
        runner = get_runner()
        handle = runner.run(specs.AppDef('tail', [specs.Role(
            'main', image='', entrypoint='sh', args=['-c', 'echo a; sleep 1; echo b'])]),
            'local_cwd')
        self.assertEqual(list(runner.log_lines(handle, 'main', should_tail=True)), ['a\n', 'b\n'])
        self.assertTrue(runner.status(handle).is_terminal())

    def test_failed_app_raises_for_status_and_cancel_cancels(self):
        runner = get_runner()
        failed = runner.run(specs.AppDef('fails', [specs.Role('main', '', entrypoint='false')]),
                            'local_cwd')
        status = runner.wait(failed)
        self.assertEqual(status.state, specs.AppState.FAILED)
        with self.assertRaises(specs.AppStatusError):
            status.raise_for_status()
        sleeper = runner.run(specs.AppDef('sleeps', [specs.Role(
            'main', '', entrypoint='sleep', args=['60'])]), 'local_cwd')
        runner.cancel(sleeper)
        self.assertEqual(runner.wait(sleeper).state, specs.AppState.CANCELLED)

    def test_wait_running_out_of_its_timeout_raises_and_leaves_the_app_running(self):
        # Issue 26: Runner.wait had no bound.
        runner = get_runner()
        sleeper = runner.run(specs.AppDef('sleeps', [specs.Role(
            'main', '', entrypoint='sleep', args=['60'])]), 'local_cwd')
        with self.assertRaisesRegex(TimeoutError, 'is still RUNNING after timeout=0.5 s'):
            runner.wait(sleeper, timeout=0.5)
        self.assertEqual(runner.status(sleeper).state, specs.AppState.RUNNING)
        runner.cancel(sleeper)

    def test_handles_parse_and_unsupported_arguments_are_refused(self):
        parsed = specs.parse_app_handle('local_cwd://default/echo-abc')
        self.assertEqual((parsed.scheduler_backend, parsed.session_name, parsed.app_id),
                         ('local_cwd', 'default', 'echo-abc'))
        with self.assertRaises(specs.MalformedAppHandleException):
            specs.parse_app_handle('echo-abc')
        runner = get_runner()
        app = specs.AppDef('x', [specs.Role('main', '', entrypoint='true')])
        with self.assertRaisesRegex(ValueError, 'workspace'):
            runner.run(app, 'local_cwd', workspace='.')
        self.assertIsNone(runner.status('local_cwd://default/never-ran'))

    def test_dryrun_submits_nothing_and_schedule_runs_it(self):
        runner = get_runner('dry')
        info = runner.dryrun(specs.AppDef('dry', [specs.Role('main', '', entrypoint='true')]),
                             'local_cwd')
        self.assertIn('dry', info.request)
        self.assertEqual(runner.list('local_cwd'), [])
        handle = runner.schedule(info)
        self.assertTrue(handle.startswith('local_cwd://dry/dry-'), handle)
        # Waited for, so that its supervisor is done before the scratch directory goes.
        self.assertEqual(runner.wait(handle).state, specs.AppState.SUCCEEDED)

    def test_a_spec_that_cannot_be_written_leaves_no_temporary_file(self):
        private = os.path.join(self.scratch, 'tmp')
        os.mkdir(private)
        self.addCleanup(setattr, tempfile, 'tempdir', tempfile.tempdir)
        tempfile.tempdir = private
        app = specs.AppDef('bad', [specs.Role('main', '', entrypoint='true')],
                           metadata={'k': object()})
        runner = get_runner()
        for submit in (runner.run, runner.dryrun):
            with self.assertRaisesRegex(TypeError, 'not JSON serializable'):
                submit(app, 'local_cwd')
        self.assertEqual(os.listdir(private), [])


    def test_the_temporary_spec_file_stays_in_tmpdir_whatever_the_app_is_named(self):
        private = os.path.join(self.scratch, 'tmp', 'private')
        os.makedirs(private)
        self.addCleanup(setattr, tempfile, 'tempdir', tempfile.tempdir)
        tempfile.tempdir = private
        runner = get_runner()
        native, spec_files = runner._native, []

        class SpecFileWatcher:
            """The real runner, noting which spec file each dryrun reads."""
            def dryrun(self, path, *rest):
                spec_files.append(path)
                return native.dryrun(path, *rest)

        runner._native = SpecFileWatcher()
        runner.dryrun(specs.AppDef('../escaped', [specs.Role('main', '', entrypoint='true')]),
                      'local_cwd')
        [spec_file] = spec_files
        self.assertEqual(os.path.dirname(spec_file), private)
        self.assertTrue(os.path.basename(spec_file).startswith('sortie-spec-'), spec_file)
        self.assertEqual(os.listdir(os.path.dirname(private)), ['private'])

    def test_a_nul_in_an_argument_environment_or_entrypoint_is_a_value_error(self):
        runner = get_runner()
        roles = {r'entrypoint': specs.Role('main', '', entrypoint='tr\0ue'),
                 r'args\[1\]': specs.Role('main', '', entrypoint='echo', args=['a', 'b\0c']),
                 r'env\.K': specs.Role('main', '', entrypoint='true', env={'K': 'v\0w'})}
        for field, role in roles.items():
            for submit in (runner.run, runner.dryrun):
                with self.subTest(field, submit=submit.__name__), self.assertRaisesRegex(
                        ValueError, r'roles\[0\]\.' + field + ': holds a NUL character'):
                    submit(specs.AppDef('nul', [role]), 'local_cwd')

if __name__ == '__main__':
    support.main()
