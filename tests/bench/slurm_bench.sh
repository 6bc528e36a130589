#!/usr/bin/env bash
# Slurm costs, against the cluster of packaging/engines/slurm_up.sh, in one run:
#   1. submit -> running: `sortie run -s slurm` of a 1-replica app until squeue says RUNNING,
#      next to a plain `sbatch --wrap` of the same command (the floor);
#   2. submitting a 100-unit sweep: one `sbatch --array=0-99%10` versus 100 separate `sbatch`
#      calls (the win job arrays are for), `sortie launch` of a 100-unit sweep on a slurm
#      executor (one array) and 100 `sortie run` calls (apps one by one);
#   3. `sortie list --active` of those 100 apps (a status each).
# Every job is held (--hold) in part 2 and cancelled afterwards, so the cluster stays free.
# Usage: tests/bench/slurm_bench.sh BUILD_DIR [ROUNDS]
set -euo pipefail
build=${1:?usage: slurm_bench.sh BUILD_DIR [ROUNDS]}
rounds=${2:-5}
sortie="$(cd "$build" && pwd)/stage/bin/sortie"
scontrol ping | grep -q UP || { echo "no Slurm cluster (packaging/engines/slurm_up.sh)" >&2; exit 1; }
# The cluster tests (tests/slurm) take the same lock: measurements see an otherwise idle cluster.
exec 9>/tmp/sortie-slurm-tests.lock
flock 9

work=$(mktemp -d)
trap 'scancel -n sortie-bench -n bench >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
export SORTIE_STATE_DIR="$work/state"
cd "$work"
printf 'title: bench\nexecutables:\n  t: {binary: /bin/true}\nexecutors:\n  s: {type: slurm, options: {sbatch_lines: --hold, array_parallelism: 10}}\njob: {executable: t, executor: s, name: w}\nsweep:\n  product:\n    i: [%s]\n' "$(seq -s, 0 99)" >sweep.yaml
printf 'name: bench\nroles:\n  - name: main\n    entrypoint: sleep\n    args: ["30"]\n' >app.yaml

now_ms() { echo $(($(date +%s%N) / 1000000)); }
until_running() { # job id
  until [ "$(squeue -h -j "$1" -o %T)" = RUNNING ]; do sleep 0.05; done
}
drained() { # cancelled jobs give their CPUs back only once they have ended
  while [ -n "$(squeue -h -t running,completing)" ]; do sleep 0.1; done
  sleep 1
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }

for ((round = 0; round < rounds; round++)); do
  drained
  start=$(now_ms)
  handle=$("$sortie" run -s slurm --spec app.yaml)
  job=$(squeue -h -o '%A|%k' | awk -F'|' -v tag="sortie-app=${handle##*/}" '$2 == tag {print $1}')
  until_running "$job"
  echo $(($(now_ms) - start)) >>sortie_running.ms
  scancel "$job"
  drained
  start=$(now_ms)
  job=$(sbatch --parsable -J sortie-bench -o /dev/null --wrap 'sleep 30')
  until_running "$job"
  echo $(($(now_ms) - start)) >>sbatch_running.ms
  scancel "$job"
done

for ((round = 0; round < rounds; round++)); do
  start=$(now_ms)
  sbatch --parsable --hold -J sortie-bench -o /dev/null --array=0-99%10 --wrap true >/dev/null
  echo $(($(now_ms) - start)) >>array.ms
  scancel -n sortie-bench
  start=$(now_ms)
  for ((i = 0; i < 100; i++)); do sbatch --parsable --hold -J sortie-bench -o /dev/null --wrap true >/dev/null; done
  echo $(($(now_ms) - start)) >>separate.ms
  scancel -n sortie-bench
  if ((round == 0)); then # 100 sortie runs take long: one round
    start=$(now_ms)
    for ((i = 0; i < 100; i++)); do "$sortie" run -s slurm -cfg sbatch_lines=--hold --spec app.yaml >/dev/null; done
    echo $(($(now_ms) - start)) >>sortie_runs.ms
    for ((i = 0; i < rounds; i++)); do # the status of those 100 apps, each record read once
      start=$(now_ms)
      "$sortie" list --active >/dev/null
      echo $(($(now_ms) - start)) >>sortie_list.ms
    done
    scancel -n bench
    start=$(now_ms)
    "$sortie" launch sweep.yaml >/dev/null
    echo $(($(now_ms) - start)) >>sortie_launch.ms
    squeue -h -o '%F|%k' | awk -F'|' '$2 ~ /^sortie-array=/ {print $1}' | sort -u | xargs -r scancel
  fi
done

echo "| measure (median of $rounds rounds) | ms |"
echo "|---|---|"
echo "| \`sortie run -s slurm\` submit -> RUNNING | $(median <sortie_running.ms) |"
echo "| \`sbatch --wrap\` submit -> RUNNING (floor) | $(median <sbatch_running.ms) |"
echo "| one \`sbatch --array=0-99%10\` (100 units) | $(median <array.ms) |"
echo "| 100 separate \`sbatch\` calls | $(median <separate.ms) |"
echo "| \`sortie launch\` of a 100-unit sweep, one array (one round) | $(cat sortie_launch.ms) |"
echo "| 100 \`sortie run -s slurm\` calls (one round) | $(cat sortie_runs.ms) |"
echo "| \`sortie list --active\` of those 100 apps | $(median <sortie_list.ms) |"
