#!/usr/bin/env bash
# Builds the runner example against sortie installed in PREFIX as a user would, runs it from a
# scratch directory, and checks what it printed and what the installed CLI (through PATH) says of
# the app it ran: recorded, succeeded, the same log lines.
set -euo pipefail
prefix=$1 source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake -S "$source_dir" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/build" >/dev/null
export SORTIE_STATE_DIR=$work/state PATH=$prefix/bin:$PATH
cd "$work"
output=$("$work/build/runner_example")
echo "$output"
handle=$(sed -n 's/^launched //p' <<<"$output")
grep -q "^$handle SUCCEEDED\$" <<<"$output" || { echo "the app did not succeed"; exit 1; }
for replica in 0 1; do
  grep -q "^sh/$replica: hello from replica $replica\$" <<<"$output" ||
    { echo "log line of replica $replica missing"; exit 1; }
done
sortie status "$handle" | grep -q SUCCEEDED || { echo "sortie status disagrees"; exit 1; }
[ "$(sortie log "$handle" | sort)" = "$(printf 'sh/0 hello from replica 0\nsh/1 hello from replica 1')" ] ||
  { echo "sortie log disagrees"; exit 1; }
echo "runner example: ran, waited for and read the logs of $handle"
