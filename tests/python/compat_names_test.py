"""Every public name of XManager 0.7 (xmanager.xm, xmanager.xm_local) and TorchX 0.8
(torchx.specs, torchx.runner, torchx.components), resolved through the sortie-compat path as a
script under `sortie launch` resolves it: each is supported (an object) or refused by name
(sortie.UnsupportedNameError saying what to use instead); a name that is neither fails the test.
The result is docs/python.md's compatibility table, which must match: run with
SORTIE_WRITE_COMPAT_TABLE=1 to rewrite it."""

import importlib
import os
import unittest

import support
from sortie import UnsupportedNameError
from sortie import compat_path

XM = '''job_operators AuxiliaryUnit AuxiliaryUnitJob AuxiliaryUnitRole DebugInterrupt Experiment
ExperimentUnit ExperimentUnitError ExperimentUnitFailedError ExperimentUnitNotCompletedError
ExperimentUnitRole ExperimentUnitStatus Importance LaunchedJob NotFoundError ReloadError WorkUnit
WorkUnitCompletedAwaitable WorkUnitRole BazelBinary BazelContainer Binary BinaryDependency
CommandList Container Dockerfile ModuleName PythonContainer Constraint Executable ExecutableSpec
Executor ExecutorSpec get_args_for_all_jobs Job JobConfig JobGeneratorType JobGroup JobType
merge_args Packageable SequentialArgs UserArgs ContextAnnotations MetadataContext bazel_binary
bazel_container binary container dockerfile_container python_container AcceleratorType
Architecture GpuType InvalidTpuTopologyError JobRequirements ResourceDict ResourceQuantity
ResourceType ServiceTier Topology TpuType run_in_asyncio_loop ShellSafeArg vCPU KiB MiB GiB TiB
PiB KB MB GB TB PB SequentialArgs.to_list SequentialArgs.to_dict SequentialArgs.rewrite_args
SequentialArgs.from_collection'''

XM_LOCAL = '''auth Caip CaipSpec DockerOptions Kubernetes KubernetesSpec Local LocalSpec
TensorboardCapability TpuCapability Vertex VertexSpec create_experiment get_experiment
list_experiments'''

SPECS = '''AppDef AppDryRunInfo AppHandle AppState AppStatus BindMount CfgVal DeviceMount
get_type_name is_terminal macros MISSING NONE NULL_RESOURCE parse_app_handle ReplicaState
ReplicaStatus Resource RetryPolicy Role RoleStatus runopt runopts UnknownAppException
UnknownSchedulerException InvalidRunConfigException MalformedAppHandleException VolumeMount
resource get_named_resources named_resources make_app_handle materialize_appdef parse_mounts
torchx_run_args_from_argparse torchx_run_args_from_json TorchXRunArgs ALL GiB
AppStatus.format AppStatus.raise_for_status AppStatus.is_terminal Role.pre_proc'''

RUNNER = '''get_runner Runner Runner.close Runner.run_component Runner.dryrun_component Runner.run
Runner.schedule Runner.name Runner.dryrun Runner.scheduler_run_opts Runner.cfg_from_str
Runner.scheduler_backends Runner.status Runner.wait Runner.cancel Runner.stop Runner.describe
Runner.log_lines Runner.list'''

COMPONENTS = '''dist.ddp dist.spmd utils.echo utils.touch utils.sh utils.python utils.binary
utils.copy utils.booth serve.torchserve metrics.tensorboard interpret train'''

MODULES = (('xmanager.xm', XM), ('xmanager.xm_local', XM_LOCAL), ('torchx.specs', SPECS),
           ('torchx.runner', RUNNER), ('torchx.components', COMPONENTS))

DOC = os.path.join(support.SOURCE_DIR, 'docs', 'python.md')
BEGIN = '<!-- compatibility table: written by tests/python/compat_names_test.py -->'
END = '<!-- end of the compatibility table -->'


def resolve(module_name, dotted):
    """'supported' or the refusal's message; raises for a name that is neither."""
    found = importlib.import_module(module_name)
    path = module_name
    try:
        for part in dotted.split('.'):
            path += '.' + part
            try:
                found = getattr(found, part)
            except AttributeError:  # a submodule not imported yet, as `from M import part`
                found = importlib.import_module(path)
    except UnsupportedNameError as refused:
        return f'refused: {refused}'
    refusal = getattr(found, 'refusal', None)
    if isinstance(refusal, UnsupportedNameError):
        return f'refused: {refusal}'
    return 'supported'


def table():
    rows = ['| module | name | on sortie |', '|---|---|---|']
    for module_name, names in MODULES:
        for name in names.split():
            verdict = resolve(module_name, name).replace(
                f'{module_name}.{name} is not supported by sortie: ', '').replace('|', '\\|')
            rows.append(f'| `{module_name}` | `{name}` | {verdict} |')
    return '\n'.join(rows)


class CompatNamesTest(unittest.TestCase):

    def setUp(self):
        compat_path.activate()

    def test_every_listed_name_is_supported_or_refused_by_name(self):
        for module_name, names in MODULES:
            for name in names.split():
                with self.subTest(f'{module_name}.{name}'):
                    self.assertRegex(resolve(module_name, name),
                                     r'^(supported|refused: \S+ is not supported by sortie: .+)$')

    def test_docs_python_md_holds_the_table(self):
        with open(DOC, encoding='utf-8') as doc:
            text = doc.read()
        start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
        expected = '\n' + table() + '\n'
        if os.environ.get('SORTIE_WRITE_COMPAT_TABLE') == '1':
            with open(DOC, 'w', encoding='utf-8') as doc:
                doc.write(text[:start] + expected + text[end:])
            return
        self.assertEqual(text[start:end], expected,
                         'docs/python.md\'s compatibility table is out of date: rerun this test '
                         'with SORTIE_WRITE_COMPAT_TABLE=1')


if __name__ == '__main__':
    support.main()
