"""An XManager launch script for Slurm: package a binary and add a sweep of four work units in
one `experiment.add(job, args=[...])`, which sortie submits as one Slurm job array (at most
--parallelism units running at once). With --group, each work unit is a job group of two jobs,
which Slurm runs as one heterogeneous job per unit: those cannot be array tasks, so the sweep is
one sbatch per unit (docs/slurm-scheduler.md). Run:
sortie launch launcher.py -- --output_dir /shared/out --parallelism 2"""

import argparse
import datetime

from sortie import xm
from sortie import xm_slurm


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--output_dir', required=True)
    parser.add_argument('--parallelism', type=int, default=0)
    parser.add_argument('--group', action='store_true')
    flags = parser.parse_args()

    with xm_slurm.create_experiment(experiment_title='slurm sweep') as experiment:
        [executable] = experiment.package([
            xm.binary(path='write_args.sh', executor_spec=xm_slurm.Slurm.Spec(),
                      env_vars={'OUTPUT_DIR': flags.output_dir}),
        ])
        executor = xm_slurm.Slurm(time=datetime.timedelta(minutes=10),
                                  array_parallelism=flags.parallelism)
        seeds = [{'seed': seed} for seed in range(4)]
        if flags.group:
            group = xm.JobGroup(train=xm.Job(executable, executor, args=['train']),
                                evaluate=xm.Job(executable, executor, args=['evaluate']))
            work_units = experiment.add(group, args=[{'train': {'args': seed}} for seed in seeds])
        else:
            work_units = experiment.add(xm.Job(executable, executor, name='train'),
                                        args=[{'args': seed} for seed in seeds])
        for work_unit in work_units:
            work_unit.wait_until_complete()
        states = ' '.join(work_unit.get_status().state for work_unit in work_units)
        print(f'experiment {experiment.experiment_id}: {states}')


if __name__ == '__main__':
    main()
