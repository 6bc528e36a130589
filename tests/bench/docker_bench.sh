#!/usr/bin/env bash
# Launch cost of local_docker: `sortie run` of a 16-replica app versus a plain script making the
# same Engine API calls with curl (create the app network, create 16 containers, start them), in
# the same run, alternating, cleaning up between rounds (not timed). Target: sortie <= 1.2x.
# Usage: tests/bench/docker_bench.sh BUILD_DIR [ROUNDS]   (needs packaging/engines/docker_up.sh)
set -euo pipefail
build=${1:?usage: docker_bench.sh BUILD_DIR [ROUNDS]}
rounds=${2:-5}
sortie="$build/stage/bin/sortie"
image=sortie-test/busybox:latest
socket=/var/run/docker.sock
[[ "${DOCKER_HOST:-}" == unix://* ]] && socket=${DOCKER_HOST#unix://}
api() { curl -sf --unix-socket "$socket" "$@"; }
api http://localhost/_ping >/dev/null || { echo "no Docker Engine on $socket" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SORTIE_STATE_DIR="$work/state"
cat >"$work/app.yaml" <<YAML
name: bench
roles:
  - name: worker
    image: $image
    entrypoint: sleep
    args: ["30"]
    num_replicas: 16
YAML

now_ms() { echo $(($(date +%s%N) / 1000000)); }
remove_app() {  # $1: app id
  local filters ids
  filters=$(printf '{"label":["sortie.app_id=%s"]}' "$1" | jq -sRr @uri)
  ids=$(api "http://localhost/v1.41/containers/json?all=1&filters=$filters" | jq -r '.[].Id')
  for id in $ids; do api -X DELETE "http://localhost/v1.41/containers/$id?force=1" >/dev/null; done
  api -X DELETE "http://localhost/v1.41/networks/sortie-$1" >/dev/null || true
}

raw_launch() {  # the same calls local_docker makes, with the same labels and network
  local app=$1 i name
  api -H 'Content-Type: application/json' -X POST http://localhost/v1.41/networks/create \
    -d "{\"Name\":\"sortie-$app\",\"Driver\":\"bridge\",\"Labels\":{\"sortie.app_id\":\"$app\"}}" >/dev/null
  for i in $(seq 0 15); do
    name="$app-worker-$i"
    api -H 'Content-Type: application/json' -X POST "http://localhost/v1.41/containers/create?name=$name" \
      -d "{\"Image\":\"$image\",\"Entrypoint\":[\"sleep\"],\"Cmd\":[\"30\"],\"Hostname\":\"worker-$i\",\"Labels\":{\"sortie.app_id\":\"$app\",\"sortie.role\":\"worker\",\"sortie.replica_id\":\"$i\"},\"HostConfig\":{\"NetworkMode\":\"sortie-$app\"},\"NetworkingConfig\":{\"EndpointsConfig\":{\"sortie-$app\":{\"Aliases\":[\"worker-$i\"]}}}}" >/dev/null
  done
  for i in $(seq 0 15); do api -X POST "http://localhost/v1.41/containers/$app-worker-$i/start" >/dev/null; done
}

command -v jq >/dev/null || { echo "jq is needed (apt-get install jq)" >&2; exit 1; }
sortie_ms=()
raw_ms=()
for round in $(seq 1 "$rounds"); do
  start=$(now_ms)
  handle=$("$sortie" run -s local_docker -cfg image_provider= --spec "$work/app.yaml")
  sortie_ms+=($(($(now_ms) - start)))
  remove_app "${handle##*/}"

  app="rawbench-$$-$round"
  start=$(now_ms)
  raw_launch "$app"
  raw_ms+=($(($(now_ms) - start)))
  remove_app "$app"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
s=$(median "${sortie_ms[@]}")
r=$(median "${raw_ms[@]}")
echo "16-replica launch, $rounds rounds: sortie run median ${s} ms (${sortie_ms[*]}), raw curl script median ${r} ms (${raw_ms[*]})"
awk -v s="$s" -v r="$r" 'BEGIN {printf "ratio sortie/raw = %.2f (target <= 1.20)\n", s / r}'
