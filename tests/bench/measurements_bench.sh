#!/usr/bin/env bash
# Measurements (issue 22): a local_cwd job printing 500,000 `step=N loss=X acc=Y` lines (1,000,000
# points), its own wall time with nobody reading its measurements and with `sortie metrics -f`
# reading them while it runs, then the time one `sortie metrics` takes to read all of them into
# the store (cold) and once they are read (warm). Not a test: prints the table of
# docs/benchmarks.md with the load at the time.
# Usage: tests/bench/measurements_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
sortie=$(realpath "$build/stage/bin/sortie")
# The store and the logs where a user's are: on the build's disk, not on a tmpfs /tmp.
work=$(mktemp -d "$(realpath "$build")/measurements-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
export SORTIE_STATE_DIR=$work/state XDG_CONFIG_HOME=$work/cfg
cd "$work"
cat > job.sh <<'JOB'
start=$(date +%s%N)
awk 'BEGIN { for (i = 0; i < 500000; i++) printf "step=%d loss=%.6f acc=%.6f\n", i, 1 / (i + 1), i / 500000 }'
echo "job_ms=$(( ($(date +%s%N) - start) / 1000000 ))"
JOB
spec() {  # NAME, then the role's env as YAML
  printf 'name: %s\nroles:\n  - name: job\n    entrypoint: sh\n    args: [%s]\n    env: %s\n' \
    "$1" "$work/job.sh" "$2" > "$1.yaml"
}
spec plain '{}'
spec measured '{SORTIE_METRICS_PATTERN: default}'
job_ms() { "$sortie" log "$1" --no-prefix --regex '^job_ms=' | cut -d= -f2; }
milliseconds_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

echo "machine: $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC'), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| run | job alone | job while \`sortie metrics -f\` reads it | \`sortie metrics\`, all 1,000,000 points (cold) | the same, read already (warm) | points stored |"
echo "|---|---|---|---|---|---|"
for run in $(seq 1 "$runs"); do
  alone=$("$sortie" run -s local_cwd --wait plain.yaml 2>/dev/null)
  read_while=$("$sortie" run -s local_cwd measured.yaml 2>/dev/null)
  "$sortie" metrics "$read_while" -f > /dev/null
  cold_app=$("$sortie" run -s local_cwd --wait measured.yaml 2>/dev/null)
  start=$(date +%s%N)
  "$sortie" metrics "$cold_app" --key loss > /dev/null
  cold=$(milliseconds_since "$start")
  start=$(date +%s%N)
  "$sortie" metrics "$cold_app" --key loss > /dev/null
  warm=$(milliseconds_since "$start")
  stored=$("$sortie" metrics "$cold_app" --json | python3 -c '
import json, sys
series = json.load(sys.stdin)["series"]
print(" + ".join(f"{s['"'"'count'"'"']} {s['"'"'key'"'"']} ({len(s['"'"'points'"'"'])} on the curve)" for s in series))')
  echo "| $run | $(job_ms "$alone") ms | $(job_ms "$read_while") ms | ${cold} ms | ${warm} ms | $stored |"
done
