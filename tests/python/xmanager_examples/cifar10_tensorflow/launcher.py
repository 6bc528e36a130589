"""The calls of XManager's examples/cifar10_tensorflow: a PythonContainer of this directory on
Vertex AI, one work unit per learning rate, each with T4 GPUs and a TensorBoard
(xm_local.TensorboardCapability) writing under $GOOGLE_CLOUD_BUCKET_NAME."""
import asyncio
import itertools
import os

from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local
from xmanager.cloud import vertex

FLAGS = flags.FLAGS
flags.DEFINE_string('tensorboard', None, 'Tensorboard instance.')
flags.DEFINE_integer('gpus_per_node', 2, 'Number of GPUs per node.')


def main(_):
    with xm_local.create_experiment(experiment_title='cifar10') as experiment:
        spec = xm.PythonContainer(
            path='.', base_image='gcr.io/deeplearning-platform-release/tf2-gpu.2-6',
            entrypoint=xm.ModuleName('cifar10'))
        [executable] = experiment.package([xm.Packageable(
            executable_spec=spec, executor_spec=xm_local.Vertex.Spec(), args={})])

        trials = [{'learning_rate': lr} for (lr,) in itertools.product([0.1, 0.001])]
        tensorboard = FLAGS.tensorboard
        if not tensorboard:
            tensorboard = vertex.get_default_client().get_or_create_tensorboard('cifar10')
            tensorboard = asyncio.get_event_loop().run_until_complete(tensorboard)
        for i, hyperparameters in enumerate(trials):
            output_dir = os.environ.get('GOOGLE_CLOUD_BUCKET_NAME', None)
            if output_dir:
                output_dir = os.path.join(output_dir, str(experiment.experiment_id), str(i))
            experiment.add(xm.Job(
                executable=executable,
                executor=xm_local.Vertex(
                    tensorboard=xm_local.TensorboardCapability(
                        name=tensorboard, base_output_directory=output_dir),
                    requirements=xm.JobRequirements(t4=FLAGS.gpus_per_node)),
                args=hyperparameters))


if __name__ == '__main__':
    app.run(main)
