#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz/ with clang, ASan and UBSan into build-fuzz/, then
# runs each on a copy of its corpus (tests/fuzz/corpus/<name>/) for RUNS inputs (default 20000),
# within libFuzzer's own limits: no input may take over 5 s (-timeout) or allocate over 1 GB
# (-rss_limit_mb, -malloc_limit_mb). The first crash, hang or oversized allocation fails the run,
# its input kept under build-fuzz/findings/. Prints one line of figures per harness.
#   tests/fuzz/run_fuzz.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-20000}
build=build-fuzz
options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
  -DSORTIE_BUILD_TESTS=OFF -DSORTIE_FUZZ=ON -DSORTIE_SANITIZE=address,undefined)
if command -v ccache >/dev/null; then
  options+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$build" "${options[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" --target sortie_fuzzers
mkdir -p "$build/findings"
export UBSAN_OPTIONS=print_stacktrace=1
failed=0
for corpus in tests/fuzz/corpus/*/; do
  name=$(basename "$corpus")
  work=$(mktemp -d)
  cp "$corpus"* "$work"
  log="$build/findings/$name.log"
  status=0
  "$build/tests/fuzz/${name}_fuzz" -runs="$runs" -timeout=5 -rss_limit_mb=1024 \
    -malloc_limit_mb=1024 -print_final_stats=1 -artifact_prefix="$build/findings/$name-" \
    "$work" >"$log" 2>&1 || status=$?
  rm -rf "$work"
  stat() { sed -n "s/^stat::$1: *//p" "$log"; }
  echo "fuzz $name: $(stat number_of_executed_units) inputs, $(stat average_exec_per_sec)/s," \
    "peak RSS $(stat peak_rss_mb) MB, exit $status"
  if [ "$status" != 0 ]; then
    failed=1
    tail -40 "$log" >&2
  fi
done
exit "$failed"
