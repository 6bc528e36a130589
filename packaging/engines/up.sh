#!/usr/bin/env bash
# Starts or installs every real engine and offline validator the tests use (root, idempotent):
# Docker Engine and the test images (busybox, Python, PyTorch), a registry on 127.0.0.1:5000, the
# Kubernetes and Vertex AI schema validators, a 2-node Slurm cluster with accounting. Run by
# packaging/test.sh alongside the build.
set -euo pipefail
cd "$(dirname "$0")"
# In this order: the images need the Engine. A failed step ends the run with a last line that
# names it, which packaging/test.sh quotes.
for step in docker_up.sh python_image_up.sh torch_image_up.sh registry_up.sh k8s_validators.sh \
  vertex_validators.sh bazel_up.sh slurm_up.sh; do
  bash "$step" || { echo "up.sh: $step failed (exit status $?)" >&2; exit 1; }
done
