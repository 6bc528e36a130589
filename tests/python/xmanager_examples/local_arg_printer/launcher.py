"""The calls of XManager's examples/local_arg_printer: a Bazel-built binary
(xm.BazelBinary) run by the local executor with env_vars. The test runs it in a copy of
examples/bazel, whose //hello:hello prints its arguments and HELLO_NAME."""
from absl import app
from xmanager import xm
from xmanager import xm_local


def main(argv):
    del argv
    with xm_local.create_experiment(experiment_title='local_arg_printer') as experiment:
        [executable] = experiment.package([xm.Packageable(
            executable_spec=xm.BazelBinary(label='//hello:hello'),
            executor_spec=xm_local.Local.Spec())])
        experiment.add(xm.Job(executable=executable, executor=xm_local.Local(),
                              env_vars={'HELLO_NAME': 'local_arg_printer'}))


if __name__ == '__main__':
    app.run(main)
