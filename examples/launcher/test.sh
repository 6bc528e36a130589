#!/usr/bin/env bash
# Builds the launcher against sortie installed in PREFIX as a user would, runs it from a scratch
# directory with its plugins isolated (so libsortie_launch.so must find both plugins.d and the
# plugin helper from its own place in PREFIX), and checks what it launched through the installed
# CLI, found through PATH: five work units, the sweep's flags, the job group's two jobs in one app.
set -euo pipefail
prefix=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$source_dir" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build" >/dev/null
export SORTIE_STATE_DIR=$work/state PATH=$prefix/bin:$PATH
cd "$work"
output=$(SORTIE_ISOLATE_PLUGINS=1 "$work/build/sweep_launcher" "$source_dir")
echo "$output"
id=$(sed -n 's/^experiment \([0-9]*\) SUCCEEDED$/\1/p' <<<"$output")
[ -n "$id" ] || { echo "the experiment did not succeed"; exit 1; }
grep -q "^listed $id 'c++ sweep': 5 work units, SUCCEEDED\$" <<<"$output" || { echo "list_experiments did not list it"; exit 1; }
shown=$(sortie experiments show "$id")
echo "$shown"
[ "$(grep -c '^work unit [0-9]*: SUCCEEDED\( \|$\)' <<<"$shown")" = 5 ] || { echo "expected 5 succeeded work units"; exit 1; }
# Work unit 1 is lr=0.1, batch_size=16 (product order), after the baked-in --epochs=2.
app=$(sed -n 's/^work unit 1: //p' <<<"$output")
logs=$(sortie log "$app")
grep -q "${id}_1_train --epochs=2 --lr=0.1 --batch_size=16\$" <<<"$logs" || { echo "unexpected log: $logs"; exit 1; }
app5=$(sed -n 's/^work unit 5: 2 jobs in //p' <<<"$output")
logs5=$(sortie log "$app5")
grep -q "${id}_5_server --epochs=2 --role=server\$" <<<"$logs5" || { echo "server line missing: $logs5"; exit 1; }
grep -q "${id}_5_client --epochs=2 --role=client --verbose\$" <<<"$logs5" || { echo "client line missing: $logs5"; exit 1; }
echo "c++ launcher: 5 work units launched, recorded and succeeded"
