#!/usr/bin/env bash
# Fresh Debian 12 (root): install dependencies, start the engines (Docker, a registry) and
# validators, build once, run every test (ctest -j2).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/deps.sh
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
ctest --test-dir build -j2 --output-on-failure
