"""An XManager launch script in the shape of XManager's local examples: package a binary, add a
2x2 sweep of work units and one job group, and let the `with` block wait for them. Only the two
imports are sortie's. Run: sortie launch launcher.py -- --output_file /tmp/args.txt"""

import argparse
import itertools

from sortie import xm
from sortie import xm_local


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--output_file', required=True)
    flags = parser.parse_args()

    with xm_local.create_experiment(experiment_title='arg printer') as experiment:
        [executable] = experiment.package([
            xm.binary(
                path='arg_printer.sh',
                executor_spec=xm_local.Local.Spec(),
                args={'verbose': True},
                env_vars={'OUTPUT_FILE': flags.output_file},
            ),
        ])
        executor = xm_local.Local(requirements=xm.JobRequirements(cpu=1, ram=1 * xm.GiB))
        for learning_rate, batch_size in itertools.product([0.1, 0.01], [16, 32]):
            experiment.add(
                xm.Job(executable=executable, executor=executor),
                args={'args': {'learning_rate': learning_rate, 'batch_size': batch_size}},
            )
        group = xm.JobGroup(
            server=xm.Job(executable=executable, executor=executor, args=['serve']),
            client=xm.Job(executable=executable, executor=executor, args=['connect']),
        )
        group.jobs['client'].env_vars['ROLE'] = 'client'
        experiment.add(group, args={'server': {'args': {'port': 8080}}})
        print(f'experiment {experiment.experiment_id}: {experiment.work_unit_count} work units')


if __name__ == '__main__':
    main()
