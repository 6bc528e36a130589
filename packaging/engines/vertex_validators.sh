#!/usr/bin/env bash
# Fetches the schema the Vertex AI request validator (tests/vertex/validate/) checks against:
# protos.json of Google's Node client, npm @google-cloud/aiplatform@7.4.0 (generated from the
# published aiplatform v1 .proto files; keeps field_behavior and oneofs). Idempotent: a cached
# copy with the expected checksum is kept; the npm tarball itself is not kept.
#
# Cache: $SORTIE_VERTEX_VALIDATORS_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/sortie/vertex-validators
# (tests/vertex/validate/validate_custom_job.py looks in the same place). Needs npm and tar.
set -euo pipefail

version=7.4.0
expected_sha256=655b172cfe4ece6c60a8acbe0e43a4fa3e0f0e3ce4138492ebd8254cb5c13b4d
cache_dir=${SORTIE_VERTEX_VALIDATORS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sortie/vertex-validators}
target=$cache_dir/protos.json

if [[ -f $target ]] && echo "$expected_sha256  $target" | sha256sum --check --status; then
  echo "vertex validators: $target is up to date"
  exit 0
fi
command -v npm >/dev/null || { echo "vertex validators: npm is required (apt-get install npm)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "@google-cloud/aiplatform@$version" >/dev/null)
tar -xzf "$work/google-cloud-aiplatform-$version.tgz" -C "$work" package/build/protos/protos.json
if ! echo "$expected_sha256  $work/package/build/protos/protos.json" | sha256sum --check --status; then
  echo "vertex validators: protos.json of @google-cloud/aiplatform@$version has an unexpected checksum" >&2
  exit 1
fi
mkdir -p "$cache_dir"
mv "$work/package/build/protos/protos.json" "$target"
echo "vertex validators: fetched $target"
