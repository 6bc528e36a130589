"""The calls of XManager's examples/cifar10_tensorflow_k8s_tensorboard: a PythonContainer on
Kubernetes, one work unit per learning rate, and a TensorBoard auxiliary unit
(xmanager.contrib.tensorboard) reading --tensorboard_log_dir."""
import itertools
import os

from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local
from xmanager.contrib import tensorboard

_TENSORBOARD_LOG_DIR = flags.DEFINE_string('tensorboard_log_dir', None, 'Log directory.')
_TENSORBOARD_TIMEOUT_SECS = flags.DEFINE_integer('tensorboard_timeout_secs', 60 * 60,
                                                 'How long TensorBoard runs.')


def main(_):
    with xm_local.create_experiment(experiment_title='cifar10') as experiment:
        spec = xm.PythonContainer(
            path='.', base_image='gcr.io/deeplearning-platform-release/tf2-gpu.2-6',
            entrypoint=xm.ModuleName('cifar10'))
        [executable] = experiment.package([xm.Packageable(
            executable_spec=spec, executor_spec=xm_local.Kubernetes.Spec())])

        trials = [{'learning_rate': lr} for (lr,) in itertools.product([0.1, 0.001])]
        log_dir = None
        if _TENSORBOARD_LOG_DIR.value:
            log_dir = f'{_TENSORBOARD_LOG_DIR.value}/{str(experiment.experiment_id)}/logs'
        if log_dir:
            tensorboard.add_tensorboard(experiment, log_dir, executor=xm_local.Kubernetes(),
                                        timeout_secs=_TENSORBOARD_TIMEOUT_SECS.value)
        for i, hyperparameters in enumerate(trials):
            output_dir = os.path.join(log_dir, str(i))
            experiment.add(xm.Job(
                executable=executable, executor=xm_local.Kubernetes(),
                args=dict({'tensorboard_log_dir': output_dir, **hyperparameters})))


if __name__ == '__main__':
    app.run(main)
