#!/usr/bin/env bash
# Configures and builds sortie into ./build (the CLI lands in build/stage/bin/sortie).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)"
