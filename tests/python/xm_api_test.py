"""sortie.xm's names behave as XManager's: args merging, requirements checked by the C++ API,
and what sortie cannot honour refused by name."""

import support
from sortie import xm
from sortie import xm_local


class XmApiTest(support.ScratchTestCase):

    def test_merge_args_overrides_keywords_in_place_and_appends_positionals(self):
        merged = xm.merge_args(['a'], {'x': 1, 'y': 2}, {'x': 3}, ['b'])
        self.assertEqual(merged.items(), [(None, 'a'), ('x', 3), ('y', 2), (None, 'b')])
        self.assertEqual(merged.to_dict(kwargs_only=True), {'x': 3, 'y': 2})
        with self.assertRaises(TypeError):
            xm.SequentialArgs.from_collection('--x=1')

    def test_sequential_args_export_as_xmanagers(self):
        args = xm.merge_args(['a'], {'x': 1, 'f': True, 'g': False, 'n': None}, {'s': 'sp ace'})
        self.assertEqual(args.to_list(str), ['a', '--x=1', '--f', '--nog', '--s=sp ace'])
        self.assertEqual(args.to_list(repr, lambda key, value: f'{key} {value}'),
                         ["'a'", "'--x' 1", "'--f'", "'--nog'", "'--s' 'sp ace'"])
        self.assertEqual(args.to_dict(), {'a': True, 'x': 1, 'f': True, 'g': False, 'n': None,
                                          's': 'sp ace'})
        self.assertEqual(args.rewrite_args(str.upper).to_list(str),
                         ['A', '--x=1', '--f', '--nog', '--s=SP ACE'])
        self.assertEqual(repr(xm.merge_args({'x': 'y'})), "['--x'='y']")
        with self.assertRaises(ValueError):
            xm.SequentialArgs.from_collection('--x=1')

    def test_resource_enums_and_errors_are_xmanagers(self):
        self.assertIn(xm.ResourceType.V100, xm.GpuType)
        self.assertNotIn(xm.ResourceType.V100, xm.TpuType)
        self.assertIs(xm.TpuType.TPU_V3, xm.ResourceType.TPU_V3)
        self.assertIn(xm.ResourceType.TPU_V3, xm.AcceleratorType)
        self.assertEqual(xm.Topology('4x4_twisted').chip_count, 16)
        with self.assertRaises(xm.InvalidTpuTopologyError):
            xm.Topology('v3-8')
        requirements = xm.JobRequirements(cpu=4, t4=2, service_tier=xm.ServiceTier.PROD)
        self.assertIsInstance(requirements.task_requirements, xm.ResourceDict)
        self.assertEqual(str(requirements.task_requirements), 'CPU: 4, T4: 2')
        with self.assertRaisesRegex(ValueError, 'service_tier=ServiceTier.BATCH'):
            xm.JobRequirements(cpu=1, service_tier=xm.ServiceTier.BATCH)

    def test_job_group_jobs_are_mutable(self):
        group = xm.JobGroup(a=None)
        group.jobs['b'] = None
        self.assertEqual(list(group.jobs), ['a', 'b'])

    def test_requirements_use_xmanager_names_and_units(self):
        requirements = xm.JobRequirements(cpu=4, ram=16 * xm.GiB, t4=2)
        self.assertEqual(requirements.entries, [('cpu', '4'), ('ram', str(16 * 2**30)),
                                                ('t4', '2')])
        tpu = xm.JobRequirements(accelerator=xm.ResourceType.TPU_V4, topology=xm.Topology('2x2'))
        self.assertEqual(tpu.entries, [('tpu_v4', '2x2')])

    def test_requirements_are_typed_as_xmanagers(self):
        requirements = xm.JobRequirements(cpu=4, t4=2)
        self.assertEqual(requirements.accelerator, xm.ResourceType.T4)
        self.assertEqual(requirements.task_requirements,
                         {xm.ResourceType.CPU: 4, xm.ResourceType.T4: 2})
        self.assertIsNone(xm.JobRequirements(cpu=1).accelerator)

    def test_a_vertex_tensorboard_is_the_vertex_run_options(self):
        executor = xm_local.Vertex(tensorboard=xm_local.TensorboardCapability(
            name='projects/p/locations/l/tensorboards/1', base_output_directory='gs://b/out'))
        options = executor.request()['options']
        self.assertEqual(options['tensorboard'], 'projects/p/locations/l/tensorboards/1')
        self.assertEqual(options['base_output_dir'], 'gs://b/out')

    def test_a_bad_requirement_is_refused_when_the_job_is_added(self):
        experiment = xm_local.create_experiment('bad requirement')
        [executable] = experiment.package([xm.binary(xm_local.Local.Spec(), '/bin/true')])
        with self.assertRaisesRegex(Exception, "v1000"):
            experiment.add(xm.Job(executable, xm_local.Local(
                xm.JobRequirements(v1000=1))))

    def test_unsupported_options_are_refused_by_name(self):
        refusals = {
            'push_image_tag': lambda: xm.binary(xm_local.Kubernetes.Spec(push_image_tag='t'),
                                                'x').request(),
            'interactive': lambda: xm_local.DockerOptions(interactive=True).request(),
            # sortie publishes on 127.0.0.1 only, and says so rather than narrowing it.
            '127.0.0.1 only': lambda: xm_local.DockerOptions(
                ports={8080: ('0.0.0.0', 18080)}).request(),
            'service_tier': lambda: xm.JobRequirements(service_tier='prod'),
            'dependencies': lambda: xm.Binary('x', dependencies=['y']).spec(),
        }
        for name, refused in refusals.items():
            with self.subTest(name), self.assertRaisesRegex(ValueError, name):
                refused()
        experiment = xm_local.create_experiment('refusals')
        [executable] = experiment.package([xm.binary(xm_local.Local.Spec(), '/bin/true')])
        job = xm.Job(executable, xm_local.Local())
        with self.assertRaisesRegex(ValueError, 'identity'):
            experiment.add(job, identity='run-1')
        with self.assertRaisesRegex(ValueError, "'argz'"):
            experiment.add(job, args={'argz': {}})


    def test_a_nul_in_an_argument_or_environment_value_is_refused_naming_it(self):
        experiment = xm_local.create_experiment('nul')
        [executable] = experiment.package([xm.binary(xm_local.Local.Spec(), '/bin/echo')])
        job = xm.Job(executable, xm_local.Local())
        for args, field in (({'args': ['a\0b']}, r'args\[0\]'),
                            ({'env_vars': {'K': 'v\0w'}}, r'env\.K')):
            with self.subTest(field), self.assertRaisesRegex(ValueError, field +
                                                             ': holds a NUL character'):
                experiment.add(job, args=args)

    def test_adding_more_work_units_at_once_than_l14_allows_is_refused(self):
        experiment = xm_local.create_experiment('wide')
        [executable] = experiment.package([xm.binary(xm_local.Local.Spec(), '/bin/true')])
        job = xm.Job(executable, xm_local.Local())
        with self.assertRaisesRegex(ValueError, r'^adding 10001 work units at once: the number of '
                                    r'work units exceeds the limit of 10000 work units '
                                    r'\(docs/limits.md L-14\); raise it with '
                                    r'SORTIE_LIMIT_WORK_UNITS_PER_SWEEP=<n>$'):
            experiment.add(job, args=[{'args': {'seed': seed}} for seed in range(10001)])
        self.assertEqual(experiment.work_units, {})

if __name__ == '__main__':
    support.main()
