#!/usr/bin/env bash
# Python API benchmarks (issue #15): `python3 -c "import sortie.xm"` against a bare interpreter, a
# 100-work-unit sweep launched from Python against the same sweep from the CLI (an experiment
# file), and the delay from SIGINT to KeyboardInterrupt during wait_until_complete(). Not a test:
# prints medians. Runs the installed prefix.
# Usage: tests/bench/python_bench.sh PREFIX [RUNS]   (PREFIX: e.g. build/test-prefix)
set -euo pipefail
prefix=$(realpath "$1")
runs=${2:-10}
command -v hyperfine >/dev/null || { echo "hyperfine missing: apt-get install hyperfine" >&2; exit 1; }
export PATH=$prefix/bin:$PATH PYTHONPATH=$prefix/lib/python3/dist-packages
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SORTIE_STATE_DIR=$work/state
cd "$work"

cat >sweep.py <<'PY'
from sortie import xm
from sortie import xm_local

experiment = xm_local.create_experiment(experiment_title='sweep')
[executable] = experiment.package([xm.binary(path='/bin/true', executor_spec=xm_local.Local.Spec())])
for i in range(100):
    experiment.add(xm.Job(executable=executable, executor=xm_local.Local(), args={'i': i}))
PY
python3 - <<'PY'
values = ', '.join(str(i) for i in range(100))
open('sweep.yaml', 'w').write(
    'title: sweep\nexecutables: {t: {binary: /bin/true}}\njob: {executable: t}\n'
    f'sweep: {{product: {{i: [{values}]}}}}\n')
PY

echo "machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(date -u +%Y-%m-%d)"
hyperfine -N --style basic --warmup 3 --runs "$runs" --export-json import.json \
  '/usr/bin/python3 -c pass' '/usr/bin/python3 -c "import sortie.xm"' >/dev/null
hyperfine -N --style basic --warmup 1 --runs "$runs" --export-json sweep.json \
  '/usr/bin/python3 sweep.py' 'sortie -q launch sweep.yaml' >/dev/null
python3 - <<'PY'
import json
for name in ('import.json', 'sweep.json'):
    for result in json.load(open(name))['results']:
        print(f"{result['command']}: median {result['median'] * 1000:.1f} ms")
PY

# SIGINT to KeyboardInterrupt: a script waits for a 60 s job; the delay is measured from outside.
cat >wait.py <<'PY'
from sortie import xm
from sortie import xm_local

experiment = xm_local.create_experiment(experiment_title='interrupted')
[executable] = experiment.package([xm.binary(path='/bin/sleep', executor_spec=xm_local.Local.Spec())])
unit = experiment.add(xm.Job(executable=executable, executor=xm_local.Local(), args=['60']))
print(experiment.experiment_id, flush=True)
try:
    unit.wait_until_complete()
except KeyboardInterrupt:
    print('KeyboardInterrupt', flush=True)
PY
python3 - "$runs" <<'PY'
import signal, statistics, subprocess, sys, time
delays = []
for _ in range(int(sys.argv[1])):
    process = subprocess.Popen(['python3', 'wait.py'], stdout=subprocess.PIPE, text=True)
    experiment = process.stdout.readline().strip()
    time.sleep(0.3)
    sent = time.monotonic()
    process.send_signal(signal.SIGINT)
    assert process.stdout.readline() == 'KeyboardInterrupt\n'
    delays.append(time.monotonic() - sent)
    process.wait()
    subprocess.run(['sortie', 'experiments', 'cancel', experiment], capture_output=True)
print(f'SIGINT to KeyboardInterrupt: median {statistics.median(delays) * 1000:.1f} ms, '
      f'max {max(delays) * 1000:.1f} ms over {len(delays)}')
PY
