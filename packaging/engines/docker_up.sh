#!/usr/bin/env bash
# Makes a Docker Engine available for the local_docker tests and benchmark (Debian 12, root):
#   1. installs docker.io and busybox-static when missing,
#   2. starts dockerd in the background when no engine answers on the socket,
#   3. builds the test image sortie-test/busybox:latest FROM scratch with the static busybox
#      (no registry is reachable, so no image can be pulled).
# Idempotent: a second run only checks. Talks to the Engine API with curl, so any docker CLI
# version (or none) will do. Honours DOCKER_HOST=unix:///path.
set -euo pipefail

image=sortie-test/busybox:latest
recipe=1  # bump when the Dockerfile below changes; the image is rebuilt when its label differs
ENGINE_MAX_TIME=60
source "$(dirname "$0")/engine_socket.sh"
source "$(dirname "$0")/../apt.sh"
engine_up() { curl -sf --max-time 5 --unix-socket "$socket" http://localhost/_ping >/dev/null 2>&1; }

missing=()
command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
[[ -x /bin/busybox ]] && /bin/busybox --list 2>/dev/null | grep -qx httpd || missing+=(busybox-static)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if ((${#missing[@]})); then
  apt_install "${missing[@]}"
fi

if ! engine_up; then
  # No systemd in these containers: run the daemon ourselves, logging to /var/log/dockerd.log.
  mkdir -p /var/log
  nohup dockerd --host "unix://$socket" >/var/log/dockerd.log 2>&1 &
  echo "started dockerd (pid $!), log /var/log/dockerd.log"
  for _ in $(seq 1 120); do
    engine_up && break
    sleep 0.5
  done
  engine_up || { tail -n 30 /var/log/dockerd.log >&2; fail "dockerd did not answer on $socket within 60 s"; }
fi
version=$(engine http://localhost/version | sed -n 's/.*"ApiVersion":"\([^"]*\)".*/\1/p')
echo "docker engine up on $socket (API $version)"

current=$(engine "http://localhost/images/$image/json" 2>/dev/null |
  sed -n 's/.*"sortie-test.recipe":"\([^"]*\)".*/\1/p' | head -n 1)
if [[ "$current" != "$recipe" ]]; then
  context=$(mktemp -d)
  trap 'rm -rf "$context"' EXIT
  mkdir -p "$context/bin"
  cp /bin/busybox "$context/bin/busybox"
  cat >"$context/Dockerfile" <<EOF
FROM scratch
COPY bin/busybox /bin/busybox
RUN ["/bin/busybox", "sh", "-c", "/bin/busybox --install -s /bin && mkdir -p /tmp /root /etc && chmod 1777 /tmp && echo root:x:0:0:root:/root:/bin/sh >/etc/passwd && echo root:x:0: >/etc/group"]
ENV PATH=/bin
LABEL sortie-test.recipe=$recipe
CMD ["/bin/sh"]
EOF
  engine_build "$image" "$context"
  echo "built $image"
fi
engine "http://localhost/images/$image/json" >/dev/null || fail "$image is missing after the build"
echo "test image $image ready"
