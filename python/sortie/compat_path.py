"""The sortie-compat path: packages named `xmanager` and `torchx` whose modules are sortie's
(`xmanager.xm` is sortie.xm, `torchx.specs` is sortie.specs, ...). They live inside the sortie
package (sortie/compat), which no interpreter searches by itself, so an installed XManager or
TorchX keeps working everywhere else; `sortie launch FILE.py` puts the directory first on
PYTHONPATH, and sortie's loader of component files (FILE.py:FUNCTION) puts it first on
sys.path (docs/python.md). Importing one of the two packages installs a finder that maps their
module names to sortie's modules, and refuses by name the modules sortie does not offer."""

import importlib
import importlib.abc
import importlib.util
import os
import sys
import types

from sortie import _refusal

DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'compat')

# XManager's and TorchX's module names -> sortie's module that stands for each.
ALIASES = {
    'xmanager.xm': 'sortie.xm',
    'xmanager.xm_local': 'sortie.xm_local',
    'xmanager.xm_flags': 'sortie.xm_flags',
    'xmanager.cloud': 'sortie.xm_cloud',
    'xmanager.cloud.vertex': 'sortie.xm_cloud',
    'xmanager.cloud.utils': 'sortie.xm_cloud',
    'xmanager.cloud.build_image': 'sortie.xm_cloud',
    'xmanager.contrib.flow': 'sortie.contrib.flow',
    'xmanager.contrib.gcs': 'sortie.contrib.gcs',
    'xmanager.contrib.tensorboard': 'sortie.contrib.tensorboard',
    'xmanager.contrib.tpu': 'sortie.contrib.tpu',
    'xmanager.contrib.xm_tensorflow': 'sortie.contrib.xm_tensorflow',
    'torchx.specs': 'sortie.specs',
    'torchx.runner': 'sortie.runner',
    'torchx.components': 'sortie.components',
    'torchx.components.dist': 'sortie.components.dist',
    'torchx.components.utils': 'sortie.components.utils',
    'torchx.components.serve': 'sortie.components.serve',
    'torchx.components.metrics': 'sortie.components.metrics',
}

_CONTRIB = ('is plain Python over XManager\'s own internals, which sortie does not carry; '
            'write the job it adds as an xm.Job of your own')
# Modules sortie refuses, with what to use instead.
REFUSED = {
    'xmanager.contrib.parameter_controller': 'its controller is a job on the cluster that '
                                             'reattaches to the experiment through XManager\'s '
                                             'database (--xm_db_yaml_config, e.g. Cloud SQL), '
                                             'and sortie\'s store is this machine\'s; run the '
                                             'controller\'s code in the launch script, waiting '
                                             'with work_unit.wait_until_complete()',
    'xmanager.contrib.framework_defaults': _CONTRIB,
    'xmanager.contrib.process_entry': _CONTRIB,
    'xmanager.contrib.copybara': _CONTRIB,
    'xmanager.vizier': 'its studies run on Vertex AI Vizier, a Google Cloud service '
                       '(google-cloud-aiplatform), which sortie has no client for; sweep with '
                       'experiment.add(job, args=[...])',
    'xmanager.xm_abseil': 'XManager 0.7 has no xm_abseil; its absl flags are xmanager.xm_flags',
    'xmanager.xm_mock': 'test launch scripts with sortie launch --dryrun',
    'xmanager.cloud.auth': 'sortie\'s Vertex plugin uses Application Default Credentials '
                           '(docs/vertex-scheduler.md)',
    'xmanager.cloud.kubernetes': 'use xm_local.Kubernetes; sortie\'s kubernetes plugin talks '
                                 'to the cluster of the current kubeconfig context',
    'xmanager.cloud.docker_lib': 'sortie packages images with its docker packager',
    'torchx.schedulers': 'schedulers are sortie plugins (`sortie plugins`); run through '
                         'torchx.runner or `sortie run -s SCHEDULER`',
    'torchx.workspace': 'sortie packages code through packagers, not workspaces',
    'torchx.tracker': 'sortie records apps and experiments in its store (`sortie list`, '
                      '`sortie experiments`)',
    'torchx.pipelines': 'sortie has no pipeline adapters; chain apps with Runner.wait',
    'torchx.apps': 'the components run their programs directly; see sortie.components',
    'torchx.components.interpret': 'no Captum component; run the script with utils.python',
    'torchx.components.train': 'no Lightning trainer component; use dist.ddp',
}


# Packages whose own module is empty: their submodules are refused one by one (REFUSED).
NAMESPACES = ('xmanager.contrib',)


class _Loader(importlib.abc.Loader):
    def __init__(self, target=None, instead=None):
        self._target = target
        self._instead = instead

    def create_module(self, spec):
        if self._instead is not None:
            raise _refusal.refusal(spec.name, self._instead)
        if self._target is None:
            namespace = types.ModuleType(spec.name)
            namespace.__path__ = []
            prefix = spec.name + '.'
            namespace.__getattr__ = _refusal.module_getattr(spec.name, {
                name[len(prefix):]: instead for name, instead in REFUSED.items()
                if name.startswith(prefix)})
            return namespace
        return importlib.import_module(self._target)

    def exec_module(self, module):
        """The module is sortie's, already run."""


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        del path, target
        if fullname in ALIASES:
            return importlib.util.spec_from_loader(fullname, _Loader(target=ALIASES[fullname]))
        if fullname in NAMESPACES:
            return importlib.util.spec_from_loader(fullname, _Loader())
        if fullname in REFUSED:
            return importlib.util.spec_from_loader(fullname, _Loader(instead=REFUSED[fullname]))
        return None


_FINDER = _Finder()


def install() -> None:
    """Maps the module names of ALIASES and REFUSED (imported through the compat packages)."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def activate() -> None:
    """Puts the compat directory first on sys.path. A real xmanager or torchx imported before
    stays what it is (sys.modules keeps it); only later imports find sortie's."""
    if sys.path[:1] != [DIRECTORY]:
        if DIRECTORY in sys.path:
            sys.path.remove(DIRECTORY)
        sys.path.insert(0, DIRECTORY)
