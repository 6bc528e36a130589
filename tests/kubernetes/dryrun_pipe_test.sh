#!/usr/bin/env bash
# `sortie run -s kubernetes --dryrun -o FORMAT --spec SPEC | validator -`, through a real pipe as
# into `kubectl apply -f -`, for each gang scheduler: the validator must find every object the
# human --dryrun announces, each VALID against the official schemas.
# Usage: dryrun_pipe_test.sh FORMAT SPEC, with `sortie` on PATH. Exit 77 (skipped) when node or
# the packages of packaging/engines/k8s_validators.sh are missing, unless CI=true.
set -euo pipefail
format=$1
spec=$2
validate_dir=$(cd "$(dirname "$0")/validate" && pwd)
modules=${SORTIE_K8S_VALIDATORS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/sortie/k8s-validators}/node_modules
if ! command -v node >/dev/null || [[ ! -d $modules/kubernetes-models ]]; then
  echo "skipped: node or the validator packages in $modules are missing (packaging/engines/k8s_validators.sh)"
  [[ ${CI:-} == true ]] && exit 1
  exit 77
fi

# No cluster configuration: a dry run needs none, and must not depend on this machine's.
sandbox=$(mktemp -d)
trap 'rm -rf "$sandbox"' EXIT
export HOME=$sandbox SORTIE_STATE_DIR=$sandbox/state
unset KUBECONFIG SORTIE_PLUGIN_PATH SORTIE_PLUGIN_DIRS

for gang in none volcano jobset; do
  expected=$(sortie run -s kubernetes -cfg gang_scheduler=$gang --dryrun --spec "$spec" |
    sed -n 's/^# \([0-9]*\) object(s).*/\1/p')
  report=$(sortie run -s kubernetes -cfg gang_scheduler=$gang --dryrun -o "$format" --spec "$spec" |
    node "$validate_dir/validate_manifests.mjs" --modules "$modules" \
      --volcano-crd "$validate_dir/batch.volcano.sh_jobs.yaml" \
      --jobset-schema "$validate_dir/jobset_v1alpha2.schema.json" -) || {
    echo "gang_scheduler=$gang: the piped $format did not validate:"
    echo "$report"
    exit 1
  }
  echo "$report"
  valid=$(grep -c '^VALID ' <<<"$report" || true)
  if [[ -z $expected || $valid != "$expected" ]]; then
    echo "gang_scheduler=$gang: $valid valid object(s) in the pipe, the human dry run announces '$expected'"
    exit 1
  fi
done
