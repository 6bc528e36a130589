"""In Jupyter an asyncio loop already runs; XManager's plain `with create_experiment()` raises
there (xmanager#14). A notebook run by Debian's nbclient and ipykernel runs the plain form, and
the awaited form in a cell of its own."""

import os

import nbclient
import nbformat

import support

PLAIN_CELL = '''\
import os
from sortie import xm
from sortie import xm_local

with xm_local.create_experiment(experiment_title='notebook') as experiment:
    [executable] = experiment.package([
        xm.binary(path='write_args.sh', executor_spec=xm_local.Local.Spec(),
                  env_vars={'OUT': os.path.abspath('out.txt')})])
    first = experiment.add(xm.Job(executable, xm_local.Local(), args=['first']))
    second = experiment.add(xm.Job(executable, xm_local.Local(), args=['second']))
    first.wait_until_complete()
    second.wait_until_complete()
# The two units run side by side, so their lines arrive in either order.
print(first.get_status().state, second.get_status().state, sorted(open('out.txt').read().split()))
'''

AWAITED_CELL = '''\
third = await experiment.add(xm.Job(executable, xm_local.Local(), args=['third']))
await third.wait_until_complete()
print(third.get_status().state)
'''


class JupyterTest(support.ScratchTestCase):

    def test_plain_with_and_awaited_cells_run_in_a_running_loop(self):
        with open(os.path.join(self.scratch, 'write_args.sh'), 'w') as script:
            script.write('#!/bin/sh\necho "$@" >> "$OUT"\n')
        os.chmod(os.path.join(self.scratch, 'write_args.sh'), 0o755)
        notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(PLAIN_CELL),
                                                   nbformat.v4.new_code_cell(AWAITED_CELL)])
        nbclient.NotebookClient(notebook, timeout=120, kernel_name='python3',
                                resources={'metadata': {'path': self.scratch}}).execute()
        outputs = [''.join(output.get('text', '') for output in cell.outputs)
                   for cell in notebook.cells]
        self.assertEqual(outputs, ["SUCCEEDED SUCCEEDED ['first', 'second']\n", 'SUCCEEDED\n'])


if __name__ == '__main__':
    support.main()
