#!/usr/bin/env bash
# Builds sortie-test/torch:1.13, the PyTorch image of the local_docker DDP tests and examples (no
# registry is reachable, so no pytorch/pytorch to pull): sortie-test/python:3.11
# (python_image_up.sh) plus this Debian's python3-torch. What goes in is what a DDP job loads
# here: the dist-packages packages that importing torch, torch.distributed and torchrun's agent
# pulls in (whole, without __pycache__), and the shared libraries those processes map plus what
# `ldd` lists for them, less those the Python image already has. WORKDIR is /workspace, so a
# workspace image (`COPY . .`) puts the working directory there and relative script paths work.
# Needs the Engine docker_up.sh starts (root, Debian 12). Idempotent and fast: nothing is rebuilt
# while the image carries the current recipe label and was built on the current Python image.
set -euo pipefail

image=sortie-test/torch:1.13
base=sortie-test/python:3.11
recipe=1  # bump when the image's content changes; the image is rebuilt when its label differs
source "$(dirname "$0")/engine_socket.sh"
source "$(dirname "$0")/../apt.sh"
label() { sed -n 's/.*"sortie-test.recipe":"\([^"]*\)".*/\1/p' | head -n 1; }

base_id=$(engine "http://localhost/images/$base/json" 2>/dev/null |
  grep -o '"Id":"sha256:[0-9a-f]*"' | head -n 1 | cut -d'"' -f4) ||
  fail "no Docker Engine answers on $socket (run docker_up.sh first)"
[[ -n "$base_id" ]] || fail "$base is missing (run python_image_up.sh first)"
# The recipe and the base image it was built on: a rebuilt Python image rebuilds this one.
wanted="$recipe ${base_id:7:12}"
if [[ "$(engine "http://localhost/images/$image/json" 2>/dev/null | label)" == "$wanted" ]]; then
  echo "test image $image ready"
  exit 0
fi

if ! /usr/bin/python3.11 -c 'import torch' 2>/dev/null; then
  apt_install python3-torch
fi

# What a DDP job (torchrun, its elastic agent, c10d rendezvous, a gloo DDP worker) imports and
# maps: "package NAME" per top-level dist-packages entry, "library PATH" per shared object.
inventory=$(/usr/bin/python3.11 - <<'EOF_PYTHON'
import sys
import torch, torch.distributed, torch.distributed.run, torch.nn.parallel, torch.utils.data
import torch.distributed.elastic.agent.server.local_elastic_agent
import torch.distributed.elastic.rendezvous.c10d_rendezvous_backend
prefix = "/usr/lib/python3/dist-packages/"
for name in sorted({m.__file__[len(prefix):].split("/")[0] for m in list(sys.modules.values())
                    if (getattr(m, "__file__", None) or "").startswith(prefix)}):
    print("package", name)
with open("/proc/self/maps") as maps:
    for path in sorted({line.split()[-1] for line in maps if ".so" in line.split()[-1]}):
        print("library", path)
EOF_PYTHON
) || fail "importing torch with /usr/bin/python3.11 failed"
# (_distutils_hack comes with setuptools' .pth file, which is not copied.)
packages=$(awk '$1 == "package" && $2 != "_distutils_hack" {
  print "usr/lib/python3/dist-packages/" $2 }' <<<"$inventory")
mapped=$(awk '$1 == "library" {print $2}' <<<"$inventory")
# torch loads torch/lib/libtorch_global_deps.so by path, a link into /usr/lib/x86_64-linux-gnu.
global_deps=/usr/lib/python3/dist-packages/torch/lib/libtorch_global_deps.so
global_deps=$(dirname "$global_deps")/$(readlink "$global_deps")

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
rootfs=$context/rootfs
mkdir -p "$rootfs/usr/bin"
# Symlinks are kept: torch/lib's point at the libraries copied below; the unused ones dangle.
# shellcheck disable=SC2086 # one path per word
tar -C / -cf - --exclude=__pycache__ $packages | tar -C "$rootfs" -xf -
cp /usr/bin/torchrun "$rootfs/usr/bin/torchrun"

# A library is copied under its soname into the real directory (/lib is usr/lib here, so the
# torch/lib links resolve), unless the Python image already has it.
real() { printf '%s/%s\n' "$(readlink -f "$(dirname "$1")")" "$(basename "$1")"; }
python_libraries=$(ldd /usr/bin/python3.11 /usr/lib/python3.11/lib-dynload/*.so 2>/dev/null |
  awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(/ {print $1}' | sort -u |
  while read -r library; do readlink -f "$library"; done)
# shellcheck disable=SC2086
libraries=$(ldd $mapped 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u)
for library in $libraries "$global_deps"; do
  grep -qxF "$(readlink -f "$library")" <<<"$python_libraries" && continue
  target=$rootfs$(real "$library")
  mkdir -p "$(dirname "$target")"
  cp -L "$library" "$target"
done

cat >"$context/Dockerfile" <<EOF_DOCKERFILE
FROM $base
COPY rootfs/ /
WORKDIR /workspace
LABEL sortie-test.recipe="$wanted"
CMD ["python3"]
EOF_DOCKERFILE
engine_build "$image" "$context"
[[ "$(engine "http://localhost/images/$image/json" | label)" == "$wanted" ]] ||
  fail "$image is missing after the build"
echo "built test image $image"
