#!/usr/bin/env bash
# Fresh Debian 12 (root): install what building and running need, build the product (not the
# tests: packaging/test.sh adds them to the same build/), and run a real job on the embedded
# default (local_cwd scheduler, SQLite store), then show it from the store.
set -euo pipefail
cd "$(dirname "$0")/.."
bash packaging/deps.sh build
SORTIE_BUILD_TESTS=OFF bash packaging/build.sh
sortie=build/stage/bin/sortie
"$sortie" run -s local_cwd --wait --log utils.echo --msg "hello from sortie"
"$sortie" list --limit 3
