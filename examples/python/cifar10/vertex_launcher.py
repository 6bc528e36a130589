"""An XManager launch script in the shape of a cifar10 Vertex AI launcher: the trainer directory
packaged as a Python container, a job group (trainer and evaluator) per work unit, and a 2x2
hyperparameter sweep. Only the two imports are sortie's. The project comes from
$GOOGLE_CLOUD_PROJECT, as for XManager. See the requests without submitting anything:
  GOOGLE_CLOUD_PROJECT=my-project sortie launch --dryrun vertex_launcher.py"""

import itertools
import os

from sortie import xm
from sortie import xm_local

# Vertex AI pulls images from a registry: the images built here are pushed to this tag (one per
# role) when the jobs are submitted; a dry run pushes nothing.
PUSH_IMAGE_TAG = (f'us-docker.pkg.dev/{os.environ.get("GOOGLE_CLOUD_PROJECT", "my-project")}'
                  '/cifar10/${role_name}:${app_id}')


def main():
    with xm_local.create_experiment(experiment_title='cifar10') as experiment:
        spec = xm_local.Vertex.Spec(push_image_tag=PUSH_IMAGE_TAG)
        trainer, evaluator = experiment.package([
            xm.python_container(executor_spec=spec, path='trainer',
                                entrypoint=xm.ModuleName('trainer.train')),
            xm.python_container(executor_spec=spec, path='trainer',
                                entrypoint=xm.ModuleName('trainer.evaluate')),
        ])
        requirements = xm.JobRequirements(cpu=8, ram=30 * xm.GiB, t4=1)
        for learning_rate, batch_size in itertools.product([0.1, 0.01], [64, 128]):
            experiment.add(
                xm.JobGroup(
                    trainer=xm.Job(
                        executable=trainer,
                        executor=xm_local.Vertex(requirements=requirements),
                        env_vars={'BATCH_SIZE': str(batch_size)},
                    ),
                    evaluator=xm.Job(
                        executable=evaluator,
                        executor=xm_local.Vertex(requirements=requirements),
                    ),
                ),
                args={'trainer': {'args': {'learning_rate': learning_rate,
                                           'batch_size': batch_size}}},
            )


if __name__ == '__main__':
    main()
