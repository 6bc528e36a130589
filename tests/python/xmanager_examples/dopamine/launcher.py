"""The calls of XManager's examples/dopamine: a PythonContainer whose docker_instructions install
Dopamine from the internet (apt, pip, the gin file's URL), trained on a T4 of Vertex AI with a
TensorBoard under $GOOGLE_CLOUD_BUCKET_NAME."""
import asyncio
import os

from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local
from xmanager.cloud import vertex

FLAGS = flags.FLAGS
flags.DEFINE_string('gin_file', 'https://raw.githubusercontent.com/google/dopamine/master/'
                    'dopamine/agents/dqn/configs/dqn_mountaincar.gin', 'Gin file.')
flags.DEFINE_string('tensorboard', None, 'Tensorboard instance.')


def main(_):
    with xm_local.create_experiment(experiment_title='dopamine') as experiment:
        gin_file = os.path.basename(FLAGS.gin_file)
        add_instruction = f'ADD {FLAGS.gin_file} {gin_file}'
        if FLAGS.gin_file.startswith('http'):
            add_instruction = f'RUN wget -O ./{gin_file} {FLAGS.gin_file}'
        spec = xm.PythonContainer(
            docker_instructions=['RUN apt update && apt install -y python3-opencv',
                                 'RUN pip install dopamine-rl', 'COPY dopamine/ workdir',
                                 'WORKDIR workdir', add_instruction],
            entrypoint=xm.ModuleName('train'))
        [executable] = experiment.package([xm.Packageable(
            executable_spec=spec, executor_spec=xm_local.Vertex.Spec(),
            args={'gin_files': gin_file})])
        tensorboard = FLAGS.tensorboard
        if not tensorboard:
            tensorboard = vertex.get_default_client().get_or_create_tensorboard('cifar10')
            tensorboard = asyncio.get_event_loop().run_until_complete(tensorboard)
        output_dir = os.path.join(os.environ['GOOGLE_CLOUD_BUCKET_NAME'],
                                  str(experiment.experiment_id))
        experiment.add(xm.Job(
            executable=executable,
            executor=xm_local.Vertex(xm.JobRequirements(t4=1),
                                     tensorboard=xm_local.TensorboardCapability(
                                         name=tensorboard, base_output_directory=output_dir))))


if __name__ == '__main__':
    app.run(main)
