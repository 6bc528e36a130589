#!/usr/bin/env bash
# Runs an auth-free Docker registry (Debian's docker-registry) on 127.0.0.1:5000 for the
# local_docker image_repo tests (Debian 12, root). Idempotent: does nothing when a registry
# already answers there. Debian's default /etc/docker/registry/config.yml turns on htpasswd auth,
# so the registry gets its own config. dockerd trusts registries on 127.0.0.0/8 over plain HTTP,
# so pushing to localhost:5000 needs no daemon configuration.
set -euo pipefail
source "$(dirname "$0")/../apt.sh"
port=${SORTIE_REGISTRY_PORT:-5000}
root=/var/lib/sortie-registry
config=/etc/sortie-registry/config.yml

fail() {
  echo "registry_up.sh: $*" >&2
  exit 1
}
registry_up() { curl -sf --max-time 5 "http://127.0.0.1:$port/v2/" >/dev/null 2>&1; }

if registry_up; then
  echo "registry already answers on 127.0.0.1:$port"
  exit 0
fi
if ! command -v docker-registry >/dev/null 2>&1; then
  apt_install docker-registry
fi
mkdir -p "$root" "$(dirname "$config")"
cat >"$config" <<EOF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $root
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
EOF
nohup docker-registry serve "$config" >/var/log/sortie-registry.log 2>&1 &
echo "started docker-registry (pid $!), log /var/log/sortie-registry.log"
for _ in $(seq 1 60); do
  registry_up && break
  sleep 0.5
done
registry_up || { tail -n 20 /var/log/sortie-registry.log >&2; fail "no registry on 127.0.0.1:$port after 30 s"; }
echo "registry up on 127.0.0.1:$port"
