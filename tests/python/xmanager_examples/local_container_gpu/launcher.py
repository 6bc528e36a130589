"""The calls of XManager's examples/local_container_gpu: a deep-module PythonContainer run by the
local executor on 2 GPUs, its output streamed to the terminal, optionally interactive."""
from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local

_EXP_NAME = flags.DEFINE_string('exp_name', 'local-cifar10-gpu', 'Name of the experiment.',
                                short_name='n')
_INTERACTIVE = flags.DEFINE_bool('interactive', False, 'Launch the container interactively.')


def main(argv) -> None:
    if len(argv) > 1:
        raise app.UsageError('Too many command-line arguments.')
    with xm_local.create_experiment(experiment_title=_EXP_NAME.value) as experiment:
        docker_options = xm_local.DockerOptions(interactive=_INTERACTIVE.value)
        executor = xm_local.Local(xm.JobRequirements(local_gpu=2),
                                  experimental_stream_output=True,
                                  docker_options=docker_options)
        (executable,) = experiment.package([xm.python_container(
            executor_spec=executor.Spec(), args={}, path='.',
            base_image='gcr.io/deeplearning-platform-release/tf2-gpu.2-6',
            entrypoint=xm.ModuleName('local_container_gpu.cifar10'), use_deep_module=True)])
        experiment.add(xm.Job(executable, executor))


if __name__ == '__main__':
    app.run(main)
