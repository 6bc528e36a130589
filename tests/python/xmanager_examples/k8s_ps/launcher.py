"""The calls of XManager's examples/cifar10_tensorflow_k8s_ps: a chief, two workers and a
parameter server of a ParameterServerStrategy on Kubernetes (xmanager.contrib.xm_tensorflow).
Its usage line names --image_path, which the launcher does not define (so neither does this
copy): the trainer is built here."""
import itertools

from absl import app
from xmanager import xm
from xmanager import xm_local
from xmanager.contrib import xm_tensorflow


def main(_):
    with xm_local.create_experiment(experiment_title='kubernetes_ps') as experiment:
        spec = xm.PythonContainer(
            path='.', base_image='gcr.io/deeplearning-platform-release/tf2-gpu.2-6',
            entrypoint=xm.ModuleName('cifar10'))
        [executable] = experiment.package([xm.Packageable(
            executable_spec=spec, executor_spec=xm_local.Kubernetes.Spec(), args={})])

        trials = [{'learning_rate': lr} for (lr,) in itertools.product([0.001])]
        builder = xm_tensorflow.ParameterServerStrategyBuilder(
            experiment=experiment,
            chief_executable=executable,
            chief_executor=xm_local.Kubernetes(requirements=xm.JobRequirements(t4=1)),
            worker_executable=executable,
            worker_executor=xm_local.Kubernetes(requirements=xm.JobRequirements(t4=1)),
            worker_name='worker',
            ps_executable=executable,
            ps_executor=xm_local.Kubernetes(),
            ps_name='ps',
            num_workers=2,
            num_ps=1)
        for hyperparameters in trials:
            experiment.add(builder.gen_job_group(), args=hyperparameters)


if __name__ == '__main__':
    app.run(main)
