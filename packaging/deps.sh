#!/usr/bin/env bash
# Installs what sortie needs to build and test on Debian 12 (run as root). Idempotent: packages
# already present are not touched, and apt's index is refreshed only when something is missing.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
packages=(
  cmake g++ make pkg-config
  libboost-dev libboost-program-options-dev libboost-filesystem-dev
  rapidjson-dev libfmt-dev libyaml-cpp-dev libsqlite3-dev libcurl4-openssl-dev
  googletest libgtest-dev libgmock-dev libssl-dev
  hyperfine time procps curl jq openssl python3
)
# The Kubernetes and Vertex request validators run on Node.js; keep a newer node when one is
# already installed (Debian's nodejs 18 also works).
command -v npm >/dev/null || packages+=(nodejs npm)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
