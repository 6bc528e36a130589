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

# engine_build IMAGE CONTEXT_DIR: builds the Dockerfile of CONTEXT_DIR as IMAGE over the API;
# fails naming the Engine's first error.
engine_build() {
  local output
  output=$(tar -C "$2" -cf - . |
    engine -X POST -H 'Content-Type: application/x-tar' --data-binary @- \
      "http://localhost/build?t=$(printf %s "$1" | sed 's,/,%2F,g;s,:,%3A,g')&rm=1&forcerm=1")
  if grep -q '"error"' <<<"$output"; then
    fail "building $1 failed: $(grep -o '"error":"[^"]*"' <<<"$output" | head -n 1)"
  fi
}
