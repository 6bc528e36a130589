#!/usr/bin/env bash
# `sortie run --wait -- true` (issue 16 target: <= 5 ms median) with the app's runtime files in
# the app directory and under $XDG_RUNTIME_DIR on tmpfs, and 64 replicas -> all running (target
# <= 20 ms). Not a test: prints the tables of docs/benchmarks.md with the load at the time.
# Usage: tests/bench/run_wait_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-100}
stage=$(realpath "$build/stage")
sortie=$stage/bin/sortie
local_bench=$(realpath "$build/tests/bench/sortie-local-bench")
exec_floor=$(realpath "$build/tests/bench/sortie-exec-floor")
command -v hyperfine >/dev/null || { echo "hyperfine missing: apt-get install hyperfine" >&2; exit 1; }
# The store and the logs where a user's are: on the build's disk, not on a tmpfs /tmp.
work=$(mktemp -d "$stage/../run-wait-bench.XXXXXX")
# A private tmpfs directory stands in for /run/user/$UID where there is none (no login session).
runtime=/run/user/$(id -u)
[[ -d $runtime && -O $runtime ]] || runtime=$(mktemp -d /dev/shm/sortie-bench-runtime.XXXXXX)
chmod 0700 "$runtime"
cleanup() {
  rm -rf "$work"
  [[ $runtime == /dev/shm/* ]] && rm -rf "$runtime"
  return 0
}
trap cleanup EXIT
export XDG_CONFIG_HOME=$work/cfg XDG_DATA_HOME=$work/data
cd "$work"

summary() {
  python3 - "$1" "$2" <<'PY'
import json, statistics, sys
times = sorted(json.load(open(sys.argv[1]))["results"][0]["times"])
print(f"| {sys.argv[2]} | {statistics.median(times)*1e3:.2f} ms | {statistics.mean(times)*1e3:.2f} ms"
      f" | {times[0]*1e3:.2f} ms | {times[-1]*1e3:.2f} ms |")
PY
}

echo "machine: $(nproc) cores, $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC'), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "store: $(df --output=fstype "$work" | tail -n 1) ($work); runtime dir: $(df --output=fstype "$runtime" | tail -n 1) ($runtime)"
echo
echo "| \`sortie run --wait -- true\`, $runs runs | median | mean | min | max |"
echo "|---|---|---|---|---|"
# The runtime directory first: the app-directory mode replaces state.json on the disk several
# times per run, and on a journal-less ext4 every inode freed in the last minute slows each
# allocation in its group (docs/local-scheduler.md, "Runtime files"); neither mode should be
# measured in the other's wake.
for mode in runtime_dir app_dir; do
  if [[ $mode == runtime_dir ]]; then
    export XDG_RUNTIME_DIR=$runtime
    label="runtime files under \$XDG_RUNTIME_DIR (tmpfs)"
  else
    unset XDG_RUNTIME_DIR
    label="runtime files in the app directory"
  fi
  export SORTIE_STATE_DIR=$work/state-$mode
  hyperfine -N --style none --warmup 10 --runs "$runs" --export-json "$mode.json" \
    "$sortie run --wait -- true" >/dev/null
  summary "$mode.json" "$label"
done
echo
# The in-process fan-out of sortie-local-bench (docs/benchmarks.md, "Local scheduler"), with the
# state directory on the same disk and the runtime files on tmpfs.
TMPDIR=$work "$local_bench" "$stage" "$(( runs < 5 ? runs : 5 ))" | grep -E '^\|( workload|---| 64 replicas)'
# What any program needs here to exec 64 processes: the floor under the line above.
"$exec_floor" 64 "$(( runs < 5 ? runs : 5 ))"
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
