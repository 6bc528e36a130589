"""The calls of XManager's examples/dockerfile: the Dockerfile of this directory (xm.Dockerfile())
built and run on Vertex AI with args and env_vars."""
from absl import app
from xmanager import xm
from xmanager import xm_local


def main(argv):
    del argv
    with xm_local.create_experiment(experiment_title='Example using Dockerfile()') as experiment:
        [executable] = experiment.package([xm.Packageable(
            executable_spec=xm.Dockerfile(), executor_spec=xm_local.Vertex.Spec())])
        experiment.add(xm.Job(executable=executable, executor=xm_local.Vertex(),
                              env_vars={'FOO': 'bar'},
                              args=['--a=1', '--b=2', '--c=3', '--d=4']))


if __name__ == '__main__':
    app.run(main)
