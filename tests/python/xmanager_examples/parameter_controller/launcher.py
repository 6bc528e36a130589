"""The calls of XManager's examples/parameter_controller: a controller job on Kubernetes
(xmanager.contrib.parameter_controller) that launches a job on Kubernetes, waits for it, then one
on Vertex AI."""
import os

from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local
from xmanager.contrib import parameter_controller


def main(_):
    with xm_local.create_experiment(experiment_title='cifar10') as experiment:

        @parameter_controller.controller(
            executor=xm_local.Kubernetes(),
            controller_args={
                'xm_k8s_service_account_name': flags.FLAGS.xm_k8s_service_account_name,
                'xm_gcp_service_account_name': flags.FLAGS.xm_gcp_service_account_name},
            controller_env_vars={
                'GOOGLE_CLOUD_BUCKET_NAME': os.environ['GOOGLE_CLOUD_BUCKET_NAME']},
            package_path='.')
        async def parameter_controller_example(experiment: xm.Experiment):
            spec = xm.PythonContainer(path='inner_job', base_image='python:3.9',
                                      entrypoint=xm.ModuleName('wait_job'))
            [vertex_executable, k8s_executable] = experiment.package([
                xm.Packageable(executable_spec=spec, executor_spec=xm_local.Vertex.Spec(),
                               args={'time_to_sleep': 10}),
                xm.Packageable(executable_spec=spec, executor_spec=xm_local.Kubernetes.Spec(),
                               args={'time_to_sleep': 20})])
            wu1 = await experiment.add(xm.Job(k8s_executable, xm_local.Kubernetes()))
            await wu1.wait_until_complete()
            wu2 = await experiment.add(xm.Job(vertex_executable, xm_local.Vertex()))
            await wu2.wait_until_complete()

        experiment.add(parameter_controller_example())


if __name__ == '__main__':
    app.run(main)
