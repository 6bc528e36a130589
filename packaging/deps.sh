#!/usr/bin/env bash
# Installs what sortie needs on Debian 12 (run as root). `deps.sh build`: what building, packaging
# (cpack) and running sortie need; `deps.sh` or `deps.sh test`: that and what the tests need.
# Idempotent: packages already present are not touched, and apt's index is refreshed only when
# something is missing. Waits for another package manager to finish (packaging/apt.sh).
set -euo pipefail
source "$(dirname "$0")/apt.sh"
group=${1:-test}
packages=(
  cmake g++ make pkg-config ccache dpkg-dev file
  libboost-dev libboost-program-options-dev libboost-filesystem-dev
  rapidjson-dev libfmt-dev libyaml-cpp-dev libsqlite3-dev libcurl4-openssl-dev libssl-dev
  python3-dev pybind11-dev
  libcpp-httplib-dev
  libjs-dygraphs
)
case $group in
  build) ;;
  test)
    packages+=(googletest libgtest-dev libgmock-dev hyperfine time procps curl jq openssl python3)
    # DDP jobs (examples/pytorch) and the sortie-test/torch image (engines/torch_image_up.sh).
    packages+=(python3-torch)
    # The Python API's notebook test (tests/python/jupyter_test.py).
    packages+=(python3-nbclient python3-nbformat python3-ipykernel)
    # `sortie ui`'s browser test: Debian's Chromium, its driver and Selenium (no browser download).
    packages+=(chromium chromium-driver python3-selenium)
    # The slurm tests run a real 2-node Slurm 22.05 cluster with accounting (engines/slurm_up.sh).
    packages+=(slurmctld slurmd slurm-client munge slurmdbd mariadb-server)
    # tests/fuzz/run_fuzz.sh: clang with its libFuzzer and sanitizer runtimes.
    packages+=(clang libclang-rt-14-dev)
    # The Kubernetes and Vertex request validators run on Node.js; keep a newer node when one is
    # already installed (Debian's nodejs 18 also works).
    command -v npm >/dev/null || packages+=(nodejs npm)
    ;;
  *)
    echo "deps.sh: unknown group '$group'; use 'build' (build, run) or 'test' (also the tests)" >&2
    exit 2
    ;;
esac
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  apt_get update -qq
  apt_get install -y -qq --no-install-recommends "${missing[@]}"
fi
