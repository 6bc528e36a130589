# Sourced by the engine scripts that talk to the Docker Engine over its API: `socket` (the
# Engine's unix socket, $DOCKER_HOST when it names one), fail() with the calling script's name,
# and engine() for curl calls (ENGINE_MAX_TIME seconds each, default 300).
script_name=$(basename "$0")
socket=/var/run/docker.sock
if [[ "${DOCKER_HOST:-}" == unix://* ]]; then
  socket=${DOCKER_HOST#unix://}
elif [[ -n "${DOCKER_HOST:-}" ]]; then
  echo "$script_name: DOCKER_HOST=$DOCKER_HOST is not a unix socket; only unix:// is supported" >&2
  exit 2
fi

fail() {
  echo "$script_name: $*" >&2
  exit 1
}
engine() { curl -sS --max-time "${ENGINE_MAX_TIME:-300}" --unix-socket "$socket" "$@"; }
