#!/usr/bin/env bash
# Builds the README's scheduler against the SDK installed in PREFIX (as a third party would),
# runs the SDK's conformance kit on it through its own ctest, and runs apps on it with the
# installed CLI found through PATH.
set -euo pipefail
prefix=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$source_dir" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_STANDARD=17 \
  -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror" >/dev/null
cmake --build "$work/build" >/dev/null
ctest --test-dir "$work/build" --no-tests=error --output-on-failure >/dev/null ||
  { ctest --test-dir "$work/build" --output-on-failure; exit 1; }
export SORTIE_PLUGIN_PATH=$work/build/plugins.d SORTIE_STATE_DIR=$work/state PATH=$prefix/bin:$PATH
cd "$work"
handle=$(sortie run -s minimal --wait -- true | tail -n 1)
sortie status "$handle" --json | grep -q '"state":"SUCCEEDED"' || { echo "true did not succeed"; exit 1; }
if sortie run -s minimal --wait -- false >/dev/null 2>&1; then echo "a failing app exited 0"; exit 1; fi
# $(sortie run ...) returns while the app runs: what the plugin starts keeps none of the caller's
# descriptors (sdk/README.md ABI-11), so the substitution does not wait for `sleep 30`.
handle=$(sortie run -s minimal -- sleep 30)
sortie status "$handle" --json | grep -q '"state":"RUNNING"' || { echo "run waited for the app"; exit 1; }
sortie cancel "$handle" >/dev/null
echo "minimal scheduler: conformant, ran, and reported failure"
