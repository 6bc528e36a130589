"""XManager's `xmanager.contrib.xm_tensorflow`: job groups for TensorFlow's
MultiWorkerMirroredStrategy and ParameterServerStrategy on Kubernetes, each job given a TF_CONFIG
that lists every task of the cluster and names its own.

A task's address is its pod's DNS name, which the kubernetes scheduler makes from the app's id
(known only when the app is submitted): TF_CONFIG names each peer as `${role_host:JOB}:2222`, and
the scheduler writes the pod name of that job's replica 0 there (docs/kubernetes-scheduler.md).
Port 2222 is XManager's (xmanager.contrib.addressing)."""

import dataclasses
import json
from typing import Dict, List

from sortie import _refusal
from sortie import xm
from sortie import xm_local

TASK_PORT = 2222


def _address(job_name: str) -> str:
    return f'${{role_host:{job_name}}}:{TASK_PORT}'


def _tf_config(cluster: Dict[str, List[str]], task_type: str, index: int) -> str:
    return json.dumps({'cluster': cluster, 'task': {'type': task_type, 'index': index}})


def _check_kubernetes(strategy: str, *executors) -> None:
    for executor in executors:
        if not isinstance(executor, xm_local.Kubernetes):
            raise _refusal.refusal(
                f'xm_tensorflow.{strategy} on {type(executor).__name__}',
                'as in XManager, its TF_CONFIG addresses are Kubernetes pod names; run it with '
                'xm_local.Kubernetes executors')


class _JobGroupBuilder:
    """What both builders share: the job group of one work unit, and a generator making it."""

    def create_job_group(self, work_unit: xm.WorkUnit, hparams) -> xm.JobGroup:
        return self.create_kubernetes_job_group(work_unit, hparams)

    def gen_job_group(self):
        """A job generator for experiment.add(generator, args=hparams)."""
        async def generate(work_unit, **hparams):
            return work_unit.add(self.create_job_group(work_unit, hparams))
        return generate


@dataclasses.dataclass
class MultiWorkerMirroredStrategyBuilder(_JobGroupBuilder):
    """num_workers jobs WORKER_NAME-0, -1, ... of one work unit, each with TF_CONFIG
    {'cluster': {'worker': [every worker]}, 'task': {'type': 'worker', 'index': i}} and the
    hyperparameters as args. experiment.add(builder.gen_job_group(), args=hparams)."""
    experiment: xm.Experiment
    worker_executable: xm.Executable
    worker_executor: xm.Executor
    worker_name: str = 'worker'
    num_workers: int = 1

    def create_kubernetes_job_group(self, work_unit: xm.WorkUnit, hparams) -> xm.JobGroup:
        del work_unit  # every address is relative to the app the group becomes
        _check_kubernetes('MultiWorkerMirroredStrategyBuilder', self.worker_executor)
        names = [f'{self.worker_name}-{i}' for i in range(self.num_workers)]
        cluster = {'worker': [_address(name) for name in names]}
        return xm.JobGroup(**{
            name: xm.Job(self.worker_executable, self.worker_executor, args=hparams,
                         env_vars={'TF_CONFIG': _tf_config(cluster, 'worker', i)})
            for i, name in enumerate(names)})


@dataclasses.dataclass
class ParameterServerStrategyBuilder(_JobGroupBuilder):
    """A chief (CHIEF_NAME), num_ps parameter servers (PS_NAME-i) and num_workers workers
    (WORKER_NAME-i) of one work unit, each with TF_CONFIG listing the chief, the workers and the
    parameter servers and naming its own task. As in XManager, the hyperparameters are the args
    of the workers and parameter servers (the chief runs without them)."""
    experiment: xm.Experiment
    chief_executable: xm.Executable
    chief_executor: xm.Executor
    worker_executable: xm.Executable
    worker_executor: xm.Executor
    ps_executable: xm.Executable
    ps_executor: xm.Executor
    chief_name: str = 'chief'
    worker_name: str = 'worker'
    ps_name: str = 'ps'
    num_workers: int = 1
    num_ps: int = 1

    def create_kubernetes_job_group(self, work_unit: xm.WorkUnit, hparams) -> xm.JobGroup:
        del work_unit  # every address is relative to the app the group becomes
        _check_kubernetes('ParameterServerStrategyBuilder', self.chief_executor,
                          self.worker_executor, self.ps_executor)
        workers = [f'{self.worker_name}-{i}' for i in range(self.num_workers)]
        servers = [f'{self.ps_name}-{i}' for i in range(self.num_ps)]
        cluster = {'chief': [_address(self.chief_name)],
                   'worker': [_address(name) for name in workers],
                   'ps': [_address(name) for name in servers]}
        jobs = {self.chief_name: xm.Job(
            self.chief_executable, self.chief_executor,
            env_vars={'TF_CONFIG': _tf_config(cluster, 'chief', 0)})}
        for task_type, names, executable, executor in (
                ('ps', servers, self.ps_executable, self.ps_executor),
                ('worker', workers, self.worker_executable, self.worker_executor)):
            for i, name in enumerate(names):
                jobs[name] = xm.Job(executable, executor, args=hparams,
                                    env_vars={'TF_CONFIG': _tf_config(cluster, task_type, i)})
        return xm.JobGroup(**jobs)
