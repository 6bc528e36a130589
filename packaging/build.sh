#!/usr/bin/env bash
# Configures and builds sortie into ./build (the CLI lands in build/stage/bin/sortie), with the
# tests unless SORTIE_BUILD_TESTS=OFF, and warnings as errors with SORTIE_WERROR=ON. Compiles through ccache when it is installed, so switching
# the tests on later, or building the same sources elsewhere with the same cache, recompiles
# nothing twice.
set -euo pipefail
cd "$(dirname "$0")/.."
options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSORTIE_BUILD_TESTS="${SORTIE_BUILD_TESTS:-ON}"
  -DSORTIE_WERROR="${SORTIE_WERROR:-OFF}")
if command -v ccache >/dev/null; then
  options+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build "${options[@]}" >/dev/null
cmake --build build -j"$(nproc)"
