#!/usr/bin/env bash
# Runs every example experiment file (one per executable kind) with `sortie launch --wait` on
# copies of the examples (Bazel writes bazel-* links into its workspace), and checks what the
# jobs printed. Needs the engines of packaging/engines/up.sh: Docker, the test images, Bazel.
# Runs the `sortie` installed in PREFIX, found through PATH, from a scratch directory.
set -euo pipefail
prefix=$1 examples_dir=$2
work=$(mktemp -d)
# Bazel's server would outlive the copied workspace by 3 hours.
trap '(cd "$work/bazel" && bazel shutdown) >/dev/null 2>&1; rm -rf "$work"' EXIT
cp -r "$examples_dir/experiments" "$examples_dir/bazel" "$work/"
export SORTIE_STATE_DIR=$work/state PATH=$prefix/bin:$PATH
cd "$work"

# launch FILE PATTERN...: the experiment succeeds and its jobs' logs match every PATTERN.
launch() {
  local file=$1
  shift
  local output
  if ! output=$(sortie --quiet launch "$work/$file" --wait 2>&1); then
    echo "$file: launch failed:"
    echo "$output"
    exit 1
  fi
  local id logs=""
  id=$(sed -n 's/^experiment \([0-9]*\) .*/\1/p' <<<"$output" | head -n 1)
  for handle in $(sed -n 's/^  work unit [0-9]*: [^ ]* //p' <<<"$output" | sort -u); do
    logs+=$(sortie log "$handle")$'\n'
  done
  for pattern in "$@"; do
    pattern=${pattern//@ID@/$id}
    grep -q -- "$pattern" <<<"$logs" || { echo "$file: no line matches '$pattern' in:"; echo "$logs"; exit 1; }
  done
  echo "$file: experiment $id SUCCEEDED"
}

launch experiments/binary.yaml "@ID@_1_train --epochs=2 --lr=0.1 --batch_size=16\$" \
  "@ID@_4_train --epochs=2 --lr=0.01 --batch_size=32\$"
launch experiments/container.yaml "hello from a container"
launch experiments/dockerfile.yaml "web server --greeting=hello in a container"
launch experiments/python_container.yaml "@ID@_1_learner --role=learner --steps=3\$" \
  "@ID@_1_actor --role=actor --debug\$"
launch bazel/bazel_binary.yaml "HELLO_NAME=world\$" "arg 1: --greeting=hi\$"
launch bazel/bazel_container.yaml "HELLO_NAME=container\$" "arg 1: --greeting=hi from an image\$"
echo "every executable kind launched and succeeded"
