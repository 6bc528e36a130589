"""What a researcher writes on an experiment (notes, tags) reads back the same from the CLI and
from Python whichever wrote it, and an experiment records what its launch ran: the command, the
experiment file's text and the git commit, branch and uncommitted diff of its directory
(docs/experiments.md, XF-30 to XF-32)."""

import json
import os
import subprocess

import support
from sortie import xm_local

EXPERIMENT = ('title: recorded\n'
              'executables: {t: {binary: /bin/true}}\n'
              'job: {executable: t, env_vars: {API_TOKEN: hunter2}}\n'
              'sweep: {product: {lr: [0.1, 0.5]}}\n')


class ExperimentRecordTest(support.ScratchTestCase):

    def git(self, *words):
        subprocess.run(['git', '-c', 'user.name=t', '-c', 'user.email=t@example.com', *words],
                       cwd=self.scratch, check=True, capture_output=True)

    def launch(self):
        self.run_command('sortie', 'launch', '--wait', 'experiment.yaml')
        listed = json.loads(self.run_command('sortie', 'experiments', 'list', '--json').stdout)
        return str(listed['experiments'][0]['id'])

    def show(self, experiment_id):
        return json.loads(self.run_command('sortie', 'experiments', 'show', experiment_id,
                                           '--json').stdout)

    def test_launch_records_the_command_the_file_and_the_git_state(self):
        with open(os.path.join(self.scratch, 'experiment.yaml'), 'w') as source:
            source.write(EXPERIMENT)
        with open(os.path.join(self.scratch, 'train.py'), 'w') as source:
            source.write('print("v1")\n')
        with open(os.path.join(self.scratch, '.gitignore'), 'w') as source:
            source.write('state/\n')  # the test's store
        self.git('init', '-q', '-b', 'main')
        self.git('add', '.gitignore', 'experiment.yaml', 'train.py')
        self.git('commit', '-q', '-m', 'first')
        commit = subprocess.run(['git', 'rev-parse', 'HEAD'], cwd=self.scratch, check=True,
                                capture_output=True, text=True).stdout.strip()
        with open(os.path.join(self.scratch, 'train.py'), 'w') as source:
            source.write('print("v2")\n')
        with open(os.path.join(self.scratch, 'notes.txt'), 'w') as source:
            source.write('untracked\n')

        experiment_id = self.launch()
        shown = self.show(experiment_id)
        code = shown['code']
        self.assertEqual(code['schema'], 'sortie.code_record/1')
        self.assertEqual(code['command'][1:], ['launch', '--wait', 'experiment.yaml'])
        # The file's text as launched, but a secret its jobs get shows nowhere (TRUST-7).
        self.assertEqual(code['script']['text'], EXPERIMENT.replace('hunter2', '********'))
        self.assertEqual(code['git']['commit'], commit)
        self.assertEqual(code['git']['branch'], 'main')
        self.assertIn('-print("v1")\n+print("v2")', code['git']['diff'])
        self.assertEqual(code['git']['untracked'], ['notes.txt'])
        self.assertTrue(code['git']['dirty'])
        # Each unit shows its hyperparameters, a secret's value masked; each job its digest.
        self.assertEqual([unit['args'] for unit in shown['work_units']],
                         [{'lr': '0.1', '$API_TOKEN': '********'},
                          {'lr': '0.5', '$API_TOKEN': '********'}])
        self.assertTrue(all(job['executable_digest'] for unit in shown['work_units']
                            for job in unit['jobs']))
        human = self.run_command('sortie', 'experiments', 'show', experiment_id).stdout
        self.assertIn(f'code: git {commit[:12]} on main, 1 file changed, 1 untracked', human)
        self.assertIn('work unit 1: SUCCEEDED  lr=0.1 $API_TOKEN=********', human)
        self.assertNotIn('hunter2', human + json.dumps(shown))

    def test_notes_and_tags_read_back_from_the_cli_and_python_alike(self):
        with open(os.path.join(self.scratch, 'experiment.yaml'), 'w') as source:
            source.write(EXPERIMENT)
        experiment_id = self.launch()
        self.run_command('sortie', 'experiments', 'note', experiment_id, 'lr 0.5 diverges')
        tagged = self.run_command('sortie', 'experiments', 'tag', experiment_id, '+baseline',
                                  '+lr=sweep', '+broken', '-broken').stdout
        self.assertEqual(tagged, 'baseline\nlr=sweep\n')

        experiment = xm_local.get_experiment(int(experiment_id))
        annotations = experiment.context.annotations
        self.assertEqual(annotations.notes, 'lr 0.5 diverges')
        self.assertEqual(annotations.tags, ['baseline', 'lr=sweep'])
        annotations.set_notes('rerun with warmup')
        annotations.add_tags('v2')
        experiment.remove_tags(['baseline'])  # the hosted XManager API's form

        shown = self.show(experiment_id)
        self.assertEqual((shown['notes'], shown['tags']), ('rerun with warmup', ['lr=sweep', 'v2']))
        listed = json.loads(self.run_command('sortie', 'experiments', 'list', '--tag', 'v2',
                                             '--json').stdout)
        self.assertEqual([e['id'] for e in listed['experiments']], [int(experiment_id)])
        self.assertEqual(listed['experiments'][0]['units_by_state'], {'SUCCEEDED': 2})
        none = json.loads(self.run_command('sortie', 'experiments', 'list', '--tag', 'baseline',
                                           '--json').stdout)
        self.assertEqual(none['experiments'], [])

    def test_bad_tags_and_notes_are_refused_and_change_nothing(self):
        with open(os.path.join(self.scratch, 'experiment.yaml'), 'w') as source:
            source.write(EXPERIMENT)
        experiment_id = self.launch()
        refused = self.run_command('sortie', 'experiments', 'tag', experiment_id, '+ok',
                                   '+has space', check=False)
        self.assertEqual(refused.returncode, 2, refused.stderr)
        self.assertIn("tag 'has space' is not a tag", refused.stderr)
        too_long = subprocess.run(['sortie', 'experiments', 'note', experiment_id, '-'],
                                  input='x' * (64 * 1024 + 1), cwd=self.scratch, env=self.env,
                                  capture_output=True, text=True, timeout=60)
        self.assertEqual(too_long.returncode, 2, too_long.stderr)
        self.assertIn('EXPERIMENT_NOTES_BYTES', too_long.stderr)
        shown = self.show(experiment_id)
        self.assertEqual((shown['notes'], shown['tags']), ('', []))
        with self.assertRaises(ValueError):
            xm_local.get_experiment(int(experiment_id)).context.annotations.add_tags('-x')


if __name__ == '__main__':
    support.main()
