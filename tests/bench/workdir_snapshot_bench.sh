#!/usr/bin/env bash
# Working-directory snapshot benchmark (issue 23 item 3): a launch directory of 10,000 files,
# 500 MB in all (50 KB each, in 100 directories), launched as one local unit. Times `sortie launch`
# with its snapshot (first: every file read and copied into the blob store; second, a new
# experiment of the unchanged directory: the digest cache reads nothing, hard links only) against
# `--live-workdir` (no snapshot), the extra launch time. Not a test: prints medians.
# Usage: tests/bench/workdir_snapshot_bench.sh [BUILD_DIR] [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
sortie=$(realpath "$build/stage/bin/sortie")
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
export SORTIE_STATE_DIR=$work/state XDG_CONFIG_HOME=$work/cfg XDG_DATA_HOME=$work/data
mkdir -p "$work/project"
cd "$work/project"
for d in $(seq -w 0 99); do
  mkdir "d$d"
  for f in $(seq -w 0 99); do head -c 51200 /dev/urandom >"d$d/f$f.bin"; done
done
printf '#!/bin/sh\ntrue\n' >noop.sh
chmod +x noop.sh
printf 'title: bench\nexecutables:\n  noop: {binary: ./noop.sh}\njob: {executable: noop, name: u}\n' \
  >exp.yaml
sync

echo "machine: $(nproc) cores, $(uname -r), $(df -T "$work" | awk 'NR==2 {print $2}'), $(date -u +%Y-%m-%d)"
echo "launch directory: $(find . -type f | wc -l) files, $(du -sm . | cut -f1) MB"
seconds() { local start end; start=$(date +%s%N); "$@" >/dev/null; end=$(date +%s%N); echo $(((end - start) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
manifest() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['files_read'], m['bytes_read'])" "$SORTIE_STATE_DIR/snapshots/experiments/$1/manifest.json"; }

first=$(seconds "$sortie" launch exp.yaml)
echo "first snapshot launch: ${first} ms (files and bytes read: $(manifest 1))"
again=() live=()
for i in $(seq "$runs"); do
  again+=("$(seconds "$sortie" launch exp.yaml)")
  live+=("$(seconds "$sortie" launch exp.yaml --live-workdir)")
done
again_ms=$(printf '%s\n' "${again[@]}" | median)
live_ms=$(printf '%s\n' "${live[@]}" | median)
echo "later snapshot launch (cache warm): median ${again_ms} ms over $runs (files and bytes read: $(manifest 2))"
echo "live-workdir launch (no snapshot): median ${live_ms} ms over $runs"
echo "extra launch time of a snapshot: first $((first - live_ms)) ms, later $((again_ms - live_ms)) ms"
