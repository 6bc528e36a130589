"""The calls of XManager's examples/cifar10_tensorflow_tpu: a PythonContainer on ubuntu:20.04
with XManager's default Dockerfile steps (xmanager.cloud.build_image.default_steps) and the TPU
VM runtime (xmanager.contrib.tpu), one work unit per learning rate on a TPU v2 of Vertex AI."""
import asyncio
import itertools
import os

from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local
from xmanager.cloud import build_image
from xmanager.cloud import vertex
from xmanager.contrib import tpu

FLAGS = flags.FLAGS
flags.DEFINE_string('tensorboard', None, 'Tensorboard instance.')


def main(_):
    with xm_local.create_experiment(experiment_title='cifar10') as experiment:
        directory = os.path.basename(os.path.dirname(os.path.realpath(__file__)))
        spec = xm.PythonContainer(
            path='.',
            base_image='ubuntu:20.04',
            docker_instructions=(
                ['RUN apt-get update --allow-releaseinfo-change && '
                 'apt-get install -y python-is-python3 python3-pip wget'] +
                build_image.default_steps(directory, use_deep_module=False) +
                tpu.tpuvm_docker_instructions()),
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
                    requirements=xm.JobRequirements(tpu_v2=8),
                    tensorboard=xm_local.TensorboardCapability(
                        name=tensorboard, base_output_directory=output_dir)),
                args=hyperparameters))


if __name__ == '__main__':
    app.run(main)
