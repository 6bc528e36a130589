"""XManager's `xmanager.contrib.tensorboard`: a TensorBoard server reading an experiment's log
directory, added as an auxiliary unit (xm.AuxiliaryUnitJob) in a tensorflow/tensorflow image
that stops after timeout_secs."""

from typing import Any, Mapping, Optional

from sortie import xm


class TensorboardProvider:
    """The packageable and the args of a TensorBoard job."""

    DEFAULT_TENSORBOARD_PORT = 6006

    @staticmethod
    def get_tensorboard_packageable(timeout_secs: int) -> xm.PythonContainer:
        """A container running `tensorboard` for timeout_secs seconds (0: no limit, as
        timeout(1) takes it)."""
        if timeout_secs < 0:
            raise RuntimeError('`timeout_secs` must be a nonnegative number')
        return xm.PythonContainer(base_image='tensorflow/tensorflow',
                                  entrypoint=xm.CommandList([f'timeout {timeout_secs}s '
                                                             'tensorboard']))

    @staticmethod
    def get_tensorboard_job_args(log_dir: str, port: Optional[int] = None,
                                 additional_args: Optional[Mapping[str, Any]] = None
                                 ) -> Mapping[str, Any]:
        """--logdir, --port (6006 by default), --host=0.0.0.0 (reachable from outside its
        container) and --load_fast=false, as XManager gives them; additional_args override."""
        return {'logdir': log_dir, 'port': port or TensorboardProvider.DEFAULT_TENSORBOARD_PORT,
                'host': '0.0.0.0', 'load_fast': 'false', **(additional_args or {})}


def add_tensorboard(experiment: xm.Experiment, logdir: str, executor: xm.Executor,
                    timeout_secs: int = 60 * 60 * 24,
                    args: Optional[Mapping[str, Any]] = None) -> None:
    """Packages TensorBoard for `executor` and adds it to `experiment` as an auxiliary unit
    (stopped with no delay once the local work units have ended)."""
    provider = TensorboardProvider
    [executable] = experiment.package([xm.Packageable(
        provider.get_tensorboard_packageable(timeout_secs=timeout_secs), executor.Spec())])
    job = xm.Job(executable, executor, name='tensorboard',
                 args=provider.get_tensorboard_job_args(logdir, additional_args=args))
    experiment.add(xm.AuxiliaryUnitJob(job, termination_delay_secs=0))
