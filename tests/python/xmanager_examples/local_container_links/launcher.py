"""The calls of XManager's examples/local_container_links: a job generator adding a JobGroup of
a server (published on this machine with DockerOptions(ports=)) and a store it reaches by
work_unit.get_full_job_name('redis'), which mounts a volume. Offline stand-ins: busybox's httpd
for the redis image, an xm.Dockerfile for the Bazel-built server image."""
import os

from absl import app
from absl import flags
from xmanager import xm
from xmanager import xm_local

_HOST_PORT = flags.DEFINE_integer('host_port', 8080, 'port of this machine the server is on')


def main(argv):
    del argv
    with xm_local.create_experiment(experiment_title='local_container_links') as experiment:
        [redis, server] = experiment.package([
            xm.Packageable(
                executable_spec=xm.Container(image_path='sortie-test/busybox:latest'),
                executor_spec=xm_local.Local.Spec(),
                args=['httpd', '-f', '-p', '6379', '-h', '/data']),
            xm.Packageable(
                executable_spec=xm.Dockerfile(path='server'),
                executor_spec=xm_local.Local.Spec()),
        ])

        async def generator(work_unit):
            work_unit.add(xm.JobGroup(
                server=xm.Job(
                    executable=server,
                    executor=xm_local.Local(docker_options=xm_local.DockerOptions(
                        ports={8080: _HOST_PORT.value})),
                    args={'redis_host': work_unit.get_full_job_name('redis')}),
                redis=xm.Job(
                    name='redis',
                    executable=redis,
                    executor=xm_local.Local(docker_options=xm_local.DockerOptions(
                        volumes={os.path.abspath('data'): '/data'}))),
            ))

        experiment.add(generator)


if __name__ == '__main__':
    app.run(main)
