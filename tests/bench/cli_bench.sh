#!/usr/bin/env bash
# CLI benchmarks (issue targets on a 2-core machine: `sortie --help` <= 5 ms,
# `sortie run -s local_cwd --wait -- true` <= 25 ms, 1,000,000 log lines through `sortie log`
# <= 0.15 s with the exact count, CLI peak RSS <= 8 MB). Not a test: prints medians and peak RSS.
# Usage: tests/bench/cli_bench.sh [BUILD_DIR]   (or `cmake --build build --target bench`)
set -euo pipefail
build=${1:-build}
sortie=$(realpath "$build/stage/bin/sortie")
command -v hyperfine >/dev/null || { echo "hyperfine missing: apt-get install hyperfine" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SORTIE_STATE_DIR=$work/state XDG_CONFIG_HOME=$work/cfg XDG_DATA_HOME=$work/data
cd "$work"

echo "machine: $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%d)"
hyperfine -N --style basic --warmup 10 --runs 100 --export-json help.json "$sortie --help" >/dev/null
hyperfine -N --style basic --warmup 5 --runs 50 --export-json run.json \
  "$sortie run -s local_cwd --wait -- true" >/dev/null
hyperfine -N --style basic --warmup 5 --runs 50 --export-json list.json \
  "$sortie plugins list" >/dev/null
# A finished app that printed 1,000,000 lines (6.9 MB), read back whole through the CLI.
million=$("$sortie" run -s local_cwd --wait -- seq 1 1000000 | head -n 1)
count=$("$sortie" log "$million" | wc -l)
[[ $count == 1000000 ]] || { echo "sortie log returned $count lines, not 1000000" >&2; exit 1; }
hyperfine -N --style basic --warmup 2 --runs 20 --export-json log.json \
  "$sortie log $million" >/dev/null

report() {
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
times = sorted(r["times"])
print(f"| {sys.argv[2]} | {r['median']*1e3:.2f} ms | {r['mean']*1e3:.2f} ± {r['stddev']*1e3:.2f} ms"
      f" | {times[0]*1e3:.2f} ms | {times[int(len(times)*0.95)-1]*1e3:.2f} ms |")
PY
}
echo "| command | median | mean ± sd | min | p95 |"
echo "|---|---|---|---|---|"
report help.json '`sortie --help`'
report run.json '`sortie run -s local_cwd --wait -- true`'
report list.json '`sortie plugins list`'
report log.json '`sortie log` of 1,000,000 lines (count checked: 1000000)'

rss() { /usr/bin/time -f "%M" "$@" 2>&1 >/dev/null | tail -n 1; }
echo
echo "| process | peak RSS |"
echo "|---|---|"
echo "| \`sortie --help\` | $(rss "$sortie" --help) KB |"
echo "| \`sortie run -s local_cwd --wait -- true\` | $(rss "$sortie" run -s local_cwd --wait -- true) KB |"
echo "| \`sortie log\` of 1,000,000 lines | $(rss "$sortie" log "$million") KB |"
