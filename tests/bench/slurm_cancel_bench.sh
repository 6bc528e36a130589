#!/usr/bin/env bash
# `sortie cancel` of 50 Slurm apps (issue 26), against the cluster of
# packaging/engines/slurm_up.sh: 50 apps are submitted with `sortie run -s slurm` (as many run as
# the cluster has CPUs, the rest wait in the queue), then cancelled
#   1. one `sortie cancel HANDLE` call per app, 50 calls one after the other (target: < 5 s in all);
#   2. one `sortie cancel H1 ... H50` call (one scancel for them all).
# Each round submits fresh apps; the cluster is drained between rounds.
# Usage: tests/bench/slurm_cancel_bench.sh BUILD_DIR [ROUNDS]
set -euo pipefail
build=${1:?usage: slurm_cancel_bench.sh BUILD_DIR [ROUNDS]}
rounds=${2:-3}
sortie="$(cd "$build" && pwd)/stage/bin/sortie"
scontrol ping | grep -q UP || { echo "no Slurm cluster (packaging/engines/slurm_up.sh)" >&2; exit 1; }
# The cluster tests (tests/slurm) take the same lock: measurements see an otherwise idle cluster.
exec 9>/tmp/sortie-slurm-tests.lock
flock 9

work=$(mktemp -d)
trap 'scancel -n cancelbench >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export SORTIE_STATE_DIR="$work/state"
cd "$work"
printf 'name: cancelbench\nroles:\n  - name: main\n    entrypoint: sleep\n    args: ["600"]\n' >app.yaml

now_ms() { echo $(($(date +%s%N) / 1000000)); }
drained() { # cancelled jobs give their CPUs back only once they have ended
  while [ -n "$(squeue -h -n cancelbench)" ]; do sleep 0.2; done
}
submit_50() { # prints the handles; returns once the cluster runs what fits
  for ((i = 0; i < 50; i++)); do "$sortie" run -s slurm --spec app.yaml; done >handles
  until [ "$(squeue -h -n cancelbench -t running | wc -l)" -ge "$(sinfo -h -o %C | cut -d/ -f4)" ] ||
    [ -z "$(squeue -h -n cancelbench -t pending)" ]; do sleep 0.2; done
  echo "$(squeue -h -n cancelbench -t running | wc -l) running, $(squeue -h -n cancelbench -t pending | wc -l) pending" >>mix
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

for ((round = 0; round < rounds; round++)); do
  drained
  submit_50
  start=$(now_ms)
  while read -r handle; do "$sortie" cancel "$handle" >/dev/null; done <handles
  echo $(($(now_ms) - start)) >>one_by_one.ms
  drained
  submit_50
  start=$(now_ms)
  xargs "$sortie" cancel <handles >/dev/null
  echo $(($(now_ms) - start)) >>one_call.ms
done

echo "apps at cancel time (each round): $(sort -u mix | paste -sd';')"
echo "| measure (median of $rounds rounds) | ms |"
echo "|---|---|"
echo "| 50 \`sortie cancel HANDLE\` calls, one after the other | $(median <one_by_one.ms) |"
echo "| one \`sortie cancel\` of the 50 handles | $(median <one_call.ms) |"
