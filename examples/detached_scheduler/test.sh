#!/usr/bin/env bash
# Builds the detached scheduler against the SDK installed in PREFIX (as a third party would),
# runs the SDK's full conformance kit on it through its own ctest (no check skipped), and runs
# apps on it with the installed CLI found through PATH: replicas with their own env, the typed
# run option, list, logs and a $(sortie run ...) that returns while the app runs.
set -euo pipefail
prefix=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lines=$(grep -cv '^[[:space:]]*$' "$source_dir/detached_scheduler.cpp")
((lines <= 120)) || { echo "detached_scheduler.cpp has $lines non-blank lines, more than 120"; exit 1; }
cmake -S "$source_dir" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build" >/dev/null
conformance=$(ctest --test-dir "$work/build" --no-tests=error -V 2>&1) || { echo "$conformance"; exit 1; }
if grep -q "SKIP " <<<"$conformance"; then echo "the kit skipped a check:"; echo "$conformance"; exit 1; fi
export SORTIE_PLUGIN_PATH=$work/build/plugins.d SORTIE_STATE_DIR=$work/state PATH=$prefix/bin:$PATH
cd "$work"
sortie runopts detached | grep -q "nice" || { echo "runopts lacks nice"; exit 1; }
handle=$(sortie run -s detached -cfg nice=5 --wait -- sh -c 'echo "niceness $(nice)"' | tail -n 1)
sortie log "$handle" | grep -q "niceness 5$" || { echo "nice=5 did not apply: $(sortie log "$handle")"; exit 1; }
sortie list -s detached | grep -q "${handle##*/} .*SUCCEEDED" || { echo "not listed"; exit 1; }
# The replicas keep none of the caller's descriptors, so the substitution returns at once.
handle=$(sortie run -s detached -- sleep 30)
sortie status "$handle" --json | grep -q '"state":"RUNNING"' || { echo "run waited for the app"; exit 1; }
sortie cancel "$handle" >/dev/null
echo "detached scheduler: $lines lines, conformant with no check skipped, ran, listed and logged"
