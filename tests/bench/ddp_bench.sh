#!/usr/bin/env bash
# PyTorch benchmarks (issue 21): what `sortie run dist.ddp` adds to a 2-rank DDP job over
# torchrun started by hand (target <= 20 ms), and a 3-unit learning-rate sweep
# (examples/pytorch/sweep.yaml, units at once) against the same three jobs one after another.
# Both sides run Debian's python3 with the same torchrun flags and PET_MONITOR_INTERVAL=0.05, so
# torchrun's poll of its workers adds at most 50 ms to either. Not a test: prints a table.
# Usage: tests/bench/ddp_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-10}
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
sortie=$(realpath "$build/stage/bin/sortie")
command -v hyperfine >/dev/null || { echo "hyperfine missing: apt-get install hyperfine" >&2; exit 1; }
/usr/bin/python3 -c 'import torch' 2>/dev/null ||
  { echo "Debian's python3-torch missing: bash packaging/deps.sh test" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SORTIE_STATE_DIR=$work/state XDG_CONFIG_HOME=$work/cfg XDG_DATA_HOME=$work/data
export PATH=/usr/bin:$PATH PET_MONITOR_INTERVAL=0.05
cp -r "$source_dir/examples/pytorch" "$work/pytorch"
cd "$work"

# What dist.ddp runs (sortie run --dryrun shows it), with a fixed port.
by_hand="python3 -m torch.distributed.run --nnodes 1 --nproc_per_node 2 --rdzv_backend c10d \
--rdzv_endpoint localhost:29477 --rdzv_id bench --redirects 1 --tee 1 --role '' \
pytorch/train.py --lr 0.05"
hyperfine --style basic --warmup 1 --runs "$runs" --export-json ddp.json \
  -n "torchrun by hand" "$by_hand" \
  -n "sortie run dist.ddp" \
  "$sortie run -s local_cwd --wait dist.ddp -j 1x2 --script pytorch/train.py -- --lr 0.05" >/dev/null

# A DDP job's seconds vary by far more than 20 ms, so sortie's own part is also measured alone:
# the same dist.ddp launch with a python3 that exits at once (/bin/true first on PATH), against
# that python3 started by hand.
mkdir -p stub
ln -sf /bin/true stub/python3
PATH=$work/stub:$PATH hyperfine -N --style basic --warmup 5 --runs "$((runs * 5))" \
  --export-json launch.json -n "python3 = true, by hand" "$work/stub/python3" \
  -n "sortie run dist.ddp, python3 = true" \
  "$sortie run -s local_cwd --wait dist.ddp -j 1x2 --script pytorch/train.py" >/dev/null

# The sweep: its three units at once, against the three jobs of its units one after another.
# One unit's job as the sweep runs it: 2 replicas as ranks.
cat >one_after_another.sh <<SH
for lr in 0.01 0.05 0.1; do
  "$sortie" run -s local_cwd --wait dist.spmd -j 2 python3 pytorch/train.py --lr=\$lr --epochs=5 \\
    --checkpoint=ckpt-one-\$lr.pt >/dev/null || exit 1
done
SH
hyperfine --style basic --warmup 0 --runs "$(( (runs + 2) / 3 ))" --export-json sweep.json \
  --prepare "rm -f ckpt-*.pt" \
  -n "sweep.yaml, 3 units at once" "$sortie launch --wait pytorch/sweep.yaml" \
  -n "the 3 units one after another" "bash one_after_another.sh" \
  >/dev/null

python3 - ddp.json launch.json sweep.json <<'PY'
import json, sys
print("| command | median | mean ± sd | min |")
print("|---|---|---|---|")
for path in sys.argv[1:]:
    results = json.load(open(path))["results"]
    for r in results:
        print(f"| {r['command']} | {r['median'] * 1e3:.1f} ms | {r['mean'] * 1e3:.1f} ± "
              f"{(r['stddev'] or 0) * 1e3:.1f} ms | {min(r['times']) * 1e3:.1f} ms |")
    base, other = results
    print(f"| difference of medians ({other['command']} - {base['command']}) | "
          f"{(other['median'] - base['median']) * 1e3:+.1f} ms | | |")
PY
