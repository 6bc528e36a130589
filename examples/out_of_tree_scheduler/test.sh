#!/usr/bin/env bash
# Builds this example against the SDK installed in PREFIX in its own build dir (as a third party
# would), runs the SDK's conformance kit on it, and checks the installed CLI, found through PATH
# and run from a scratch directory, finds it through SORTIE_PLUGIN_PATH, lists it beside the
# built-ins, runs an app on it, lists the app and reads its log.
set -euo pipefail
prefix=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$source_dir" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build" >/dev/null
conformance=$(ctest --test-dir "$work/build" --no-tests=error -V 2>&1) || { echo "$conformance"; exit 1; }
for check in run list logs; do  # serial has list and log_open: the kit must not skip them
  grep -q "PASS $check" <<<"$conformance" || { echo "conformance did not pass $check:"; echo "$conformance"; exit 1; }
done
export SORTIE_PLUGIN_PATH=$work/build/plugins.d SORTIE_STATE_DIR=$work/state PATH=$prefix/bin:$PATH
cd "$work"
listing=$(sortie plugins list --group sortie.schedulers)
grep -q '^sortie.schedulers *serial ' <<<"$listing" || { echo "serial not listed:"; echo "$listing"; exit 1; }
grep -q '^sortie.schedulers *local_cwd ' <<<"$listing" || { echo "local_cwd not listed:"; echo "$listing"; exit 1; }
output=$(sortie run -s serial --wait -- echo "replica-output")
# ABI-11: the replica writes to its log in the scheduler's state dir, not to sortie's stdout.
if grep -q "replica-output" <<<"$output"; then echo "replica output on stdout: $output"; exit 1; fi
grep -rqx "replica-output" "$SORTIE_STATE_DIR" || { echo "replica output not logged"; exit 1; }
handle=$(tail -n 1 <<<"$output")
case $handle in serial://default/echo-*) ;; *) echo "unexpected handle: $handle"; exit 1 ;; esac
sortie status "$handle" --json | grep -q '"state":"SUCCEEDED"'
# list and log ask the scheduler itself: no "cannot list" or "unverified" from the CLI, and the
# replica's line comes back through log_open.
listing=$(sortie list -s serial 2>&1)
grep -q "${handle##*/} .*SUCCEEDED" <<<"$listing" || { echo "app not listed: $listing"; exit 1; }
if grep -q "unverified\|store's apps only" <<<"$listing"; then echo "serial did not list: $listing"; exit 1; fi
logs=$(sortie log "$handle")
grep -q "replica-output$" <<<"$logs" || { echo "sortie log lacks the replica's line: $logs"; exit 1; }
if sortie run -s serial --wait -- false >/dev/null 2>&1; then echo "a failing app exited 0"; exit 1; fi
echo "out-of-tree plugin: listed, ran, listed its app, showed its log and reported failure"
