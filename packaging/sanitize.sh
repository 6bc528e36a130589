#!/usr/bin/env bash
# The sanitizer build: sortie with ASan and UBSan (g++, Debug, so the local supervisor links
# dynamically) in ./build-sanitize, then the unit and CLI tests, each test program run whole, so
# an error that shows only after another test in the same process shows too. The CLI tests run
# the build installed into build-sanitize/test-prefix, as ctest's install_test_prefix does.
# Exits non-zero when any test program fails or a sanitizer reports.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-sanitize
# The unit and CLI tests: tests/<dir> for each.
test_dirs=(sdk model registry store plugin_host session runner local xm cli)
options=(-DCMAKE_BUILD_TYPE=Debug -DSORTIE_SANITIZE=address,undefined)
if command -v ccache >/dev/null; then
  options+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
# Everything installed first (the CLI tests need the whole prefix), then only these tests.
cmake -S . -B "$build" "${options[@]}" -DSORTIE_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)"
cmake -S . -B "$build" -DSORTIE_BUILD_TESTS=ON >/dev/null
for dir in "${test_dirs[@]}"; do
  make -C "$build/tests/$dir" -j"$(nproc)" --no-print-directory >/dev/null
done
rm -rf "$build/test-prefix"
cmake --install "$build" --prefix "$build/test-prefix" >/dev/null
# handle_segv=0: the isolation tests' fixtures die of SIGSEGV on purpose, and must die of it.
export ASAN_OPTIONS=detect_leaks=1:handle_segv=0 UBSAN_OPTIONS=print_stacktrace=1
passed=0
failed=0
for dir in "${test_dirs[@]}"; do
  for program in $(find "$build/tests/$dir" -maxdepth 1 -type f -executable -name '*test*' | sort); do
    # A bound per program: a hang fails this step with its log instead of eating CI's 90 minutes.
    if timeout 900 "$program" --gtest_brief=1 >"$program.log" 2>&1; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "sanitize.sh: $program failed:" >&2
      tail -60 "$program.log" >&2
    fi
  done
done
echo "sanitize: $passed passed, $failed failed"
[ "$failed" = 0 ]
