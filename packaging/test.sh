#!/usr/bin/env bash
# Fresh Debian 12 (root): install dependencies, build once, run every test (ctest -j2).
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/deps.sh
bash packaging/build.sh
ctest --test-dir build -j2 --output-on-failure
