#!/usr/bin/env bash
# Fresh Debian 12 (root): install dependencies, start the engines (Docker, a registry) and
# validators, build once, run every test (ctest -j2). In CI (CI=true), or with
# SORTIE_FRESH_ROOT_CHECK=1, then also checks the README's first command and the .deb on a
# brand-new Debian 12 root (packaging/fresh_root_check.sh), after the tests so it does not take
# their cores; its build reuses this build's ccache.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/deps.sh test
# Engines come up while the build runs; the tests need both. A failed engine step stops the build
# at once rather than after it. The build has its own process group, so that stopping it stops its
# compilers too, and the EXIT trap stops it on Ctrl-C, which reaches only the terminal's group.
mkdir -p build
engines_log=build/engines.log
bash packaging/engines/up.sh >"$engines_log" 2>&1 &
engines=$!
SORTIE_WERROR=${SORTIE_WERROR:-ON} setsid bash packaging/build.sh &  # CI: warnings are errors
build=$!
# Only while bash's job table has it running: once reaped, its pid may belong to another process.
stop_build() {
  if jobs -rp | grep -qx "$build"; then
    kill -TERM -- -"$build" 2>/dev/null || true
    wait "$build" || true
  fi
}
trap stop_build EXIT
engines_failed() {
  local step
  step=$(tail -n 1 "$engines_log" | sed -n 's/^up\.sh: \(.*\) failed (exit status [0-9]*)$/\1/p')
  echo "test.sh: the last lines of $engines_log:" >&2
  tail -n 40 "$engines_log" >&2
  echo "test.sh: engine step ${step:-packaging/engines/up.sh} failed (log above, all of it in" \
    "$engines_log)$1" >&2
  exit 1
}
status=0
wait -n -p first "$engines" "$build" || status=$?
if [ "$first" = "$build" ]; then
  ((status == 0)) || exit "$status"
  wait "$engines" || engines_failed ""
elif ((status)); then
  stop_build
  engines_failed "; the build was stopped"
else
  wait "$build"
fi
tests_status=0
ctest --test-dir build -j2 --output-on-failure || tests_status=$?
if [ "${CI:-}" = true ]; then
  # The checked builds of docs/limits.md: every fuzz harness on a bounded budget, then the unit
  # and CLI tests under ASan and UBSan.
  bash tests/fuzz/run_fuzz.sh 2000 || tests_status=1
  bash packaging/sanitize.sh || tests_status=1
fi
if [ "${CI:-}" = true ] || [ "${SORTIE_FRESH_ROOT_CHECK:-}" = 1 ]; then
  # Runs even when a test failed: a missing dependency often shows in both.
  bash packaging/fresh_root_check.sh
fi
exit "$tests_status"
