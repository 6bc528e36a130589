"""The learning-rate sweep of sweep.yaml as an XManager launch script, run with
`sortie launch examples/pytorch/launcher.py`: three work units at the same time, each a 2-rank
DDP job of train.py whose replicas are its ranks, each with its own rendezvous port and
checkpoint (train.py's default, in the unit's $SORTIE_OUTPUT_DIR). Only the two imports are
sortie's."""

from sortie import xm
from sortie import xm_local

LEARNING_RATES = (0.01, 0.05, 0.1)


def main():
    with xm_local.create_experiment(experiment_title='pytorch lr sweep') as experiment:
        [train] = experiment.package([
            xm.binary(path='train.py', executor_spec=xm_local.Local.Spec()),
        ])
        job = xm.Job(
            train, xm_local.Local(requirements=xm.JobRequirements(replicas=2)),
            args={'epochs': 5},
            env_vars={'RANK': '${replica_id}', 'WORLD_SIZE': '${num_replicas}',
                      'MASTER_ADDR': '${rank0_host}', 'MASTER_PORT': '${free_port}'})
        work_units = experiment.add(job, args=[{'args': {'lr': lr}} for lr in LEARNING_RATES])
        for work_unit in work_units:
            work_unit.wait_until_complete()
        states = ' '.join(work_unit.get_status().state for work_unit in work_units)
        print(f'experiment {experiment.experiment_id}: {states}')


if __name__ == '__main__':
    main()
