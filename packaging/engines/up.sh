#!/usr/bin/env bash
# Starts or installs every real engine and offline validator the tests use (root, idempotent):
# Docker Engine and the test images (busybox, Python, PyTorch), a registry on 127.0.0.1:5000, the
# Kubernetes and Vertex AI schema validators, a 2-node Slurm cluster with accounting. Run by
# packaging/test.sh alongside the build.
set -euo pipefail
cd "$(dirname "$0")"
bash docker_up.sh
bash python_image_up.sh
bash torch_image_up.sh
bash registry_up.sh
bash k8s_validators.sh
bash vertex_validators.sh
bash bazel_up.sh
bash slurm_up.sh
