"""The async form of launcher.py, as XManager's launchers are often written: an
@xm.run_in_asyncio_loop main, `async with`, `await experiment.add(...)` and awaiting each work
unit. Only the two imports are sortie's. Run: sortie launch launcher_async.py -- OUTPUT_FILE"""

import sys

from sortie import xm
from sortie import xm_local


@xm.run_in_asyncio_loop
async def main(output_file):
    async with xm_local.create_experiment(experiment_title='arg printer (async)') as experiment:
        [executable] = experiment.package([
            xm.binary(path='arg_printer.sh', executor_spec=xm_local.Local.Spec(),
                      env_vars={'OUTPUT_FILE': output_file}),
        ])
        work_units = []
        for seed in range(2):
            work_units.append(await experiment.add(
                xm.Job(executable=executable, executor=xm_local.Local(), args={'seed': seed})))
        for work_unit in work_units:
            await work_unit.wait_until_complete()
            print(f'work unit {work_unit.work_unit_id}: {work_unit.get_status().state}')


if __name__ == '__main__':
    main(sys.argv[1])
