#!/usr/bin/env bash
# Installs the npm packages that tests/kubernetes/validate/validate_manifests.mjs checks Kubernetes
# manifests with (kubernetes-models: ajv validators compiled from the official OpenAPI;
# kubernetes-types + typescript: unknown-field checks; yaml), pinned by the package-lock.json
# beside the validator. Idempotent: a second run with the same lock file does nothing, and npm's
# cache makes a reinstall work offline.
#
# Target: $SORTIE_K8S_VALIDATORS_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/sortie/k8s-validators
# (the Kubernetes manifest test looks in the same place). Needs node and npm (Debian: nodejs, npm).
set -euo pipefail

source_dir=$(cd "$(dirname "$0")/../../tests/kubernetes/validate" && pwd)
target=${SORTIE_K8S_VALIDATORS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sortie/k8s-validators}
stamp=$target/.lock-sha256
wanted=$(sha256sum "$source_dir/package-lock.json" | cut -d' ' -f1)

if [[ -f $stamp && $(cat "$stamp") == "$wanted" && -d $target/node_modules/kubernetes-models ]]; then
  echo "k8s validators: $target is up to date"
  exit 0
fi
for tool in node npm; do
  command -v $tool >/dev/null || { echo "k8s validators: $tool is required (apt-get install nodejs npm)" >&2; exit 1; }
done

mkdir -p "$target"
cp "$source_dir/package.json" "$source_dir/package-lock.json" "$target/"
# kubernetes-models declares node>=22 but runs on Debian 12's node 18/20; the engine warning is noise.
(cd "$target" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error --engine-strict=false)
echo "$wanted" >"$stamp"
echo "k8s validators: installed into $target"
