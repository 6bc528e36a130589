"""The calls of XManager's examples/cifar10_torch_xla: one coordinator job group on Vertex AI,
on CPU, T4 GPUs or a TPU v3 pod slice (--platform), from a pushed image (--image_path) or a
PythonContainer of this directory."""
import itertools

from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local

FLAGS = flags.FLAGS
flags.DEFINE_string('image_path', None, 'Image path.')
flags.DEFINE_string('platform', 'cpu', 'cpu/gpu/tpu.')
flags.DEFINE_integer('cores', 1, 'Number of cores. Use 8 if platform==tpu.')


def main(_):
    with xm_local.create_experiment(experiment_title='cifar10') as experiment:
        if FLAGS.image_path:
            spec = xm.Container(image_path=FLAGS.image_path)
        else:
            spec = xm.PythonContainer(
                path='.', base_image='gcr.io/deeplearning-platform-release/pytorch-xla.1-8',
                entrypoint=xm.ModuleName('cifar10'))
        [executable] = experiment.package([xm.Packageable(
            executable_spec=spec, executor_spec=xm_local.Vertex.Spec(),
            args={'platform': FLAGS.platform})])

        trials = [{'batch_size': bs, 'learning_rate': lr}
                  for (bs, lr) in itertools.product([64, 1024], [0.1, 0.001])]
        requirements = xm.JobRequirements()
        if FLAGS.platform == 'gpu':
            requirements = xm.JobRequirements(t4=FLAGS.cores)
        elif FLAGS.platform == 'tpu':
            requirements = xm.JobRequirements(tpu_v3=8)
        for hyperparameters in trials:
            jobs = {'coordinator': xm.Job(executable=executable,
                                          executor=xm_local.Vertex(requirements),
                                          args=hyperparameters)}
            experiment.add(xm.JobGroup(**jobs))
            break
        print('Waiting for async launches to return values...')
    print('Launch completed and successful.')


if __name__ == '__main__':
    app.run(main)
