#!/usr/bin/env bash
# Fresh Debian 12 (root): install dependencies, start the engines (Docker, a registry) and
# validators, build once, run every test (ctest -j2). In CI (CI=true), or with
# SORTIE_FRESH_ROOT_CHECK=1, then also checks the README's first command and the .deb on a
# brand-new Debian 12 root (packaging/fresh_root_check.sh), after the tests so it does not take
# their cores; its build reuses this build's ccache.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/deps.sh test
# Engines come up while the build runs; the tests need both.
mkdir -p build
bash packaging/engines/up.sh >build/engines.log 2>&1 &
engines=$!
bash packaging/build.sh
if ! wait "$engines"; then
  cat build/engines.log >&2
  echo "test.sh: an engine or validator could not be set up (log above)" >&2
  exit 1
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
