#!/usr/bin/env bash
# Issue 26 A7: `sortie run -s local_cwd -- true` with its state directory on a small tmpfs left
# with 0 to MAX KiB free (step 4 KiB, the page size). Each try must either
#   - exit 0 with a supervisor on record (pid in state.json) and the app reaching a terminal
#     state, or
#   - exit non-zero naming the full disk ("No space left on device" or "disk full") and a path on
#     that file system.
# Prints how many tries ended each way (docs/benchmarks.md). Needs root (mount); runs in its own
# mount namespace so no tmpfs outlives it. Uses the `sortie` on PATH.
# Usage: disk_full_sweep.sh [MAX_KIB]
set -euo pipefail
if [[ -z "${SORTIE_SWEEP_IN_NAMESPACE:-}" ]]; then
  if [[ $(id -u) != 0 ]]; then
    echo "disk_full_sweep: needs root to mount a small tmpfs" >&2
    exit 1
  fi
  SORTIE_SWEEP_IN_NAMESPACE=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
max=${1:-160}
work=$(mktemp -d)
# The store's checkpoint helper (or an app's supervisor) may still be writing there as the
# sweep ends, so the removal is retried, and a late one never turns the sweep's verdict.
cleanup() {
  for _ in $(seq 50); do
    umount "$work/fs" 2>/dev/null || true
    rm -rf "$work" 2>/dev/null && return
    sleep 0.1
  done
  echo "disk_full_sweep: could not remove $work" >&2
}
trap cleanup EXIT
mkdir -p "$work/fs"
export SORTIE_STATE_DIR=$work/fs/state XDG_CONFIG_HOME=$work/cfg XDG_DATA_HOME=$work/data
unset XDG_RUNTIME_DIR  # the app's runtime files live in its directory, on the full file system

started=0 refused=0 store_refused=0 supervisor_refused=0 failures=0
fail() {
  echo "FAIL at $1 KiB free: $2" >&2
  failures=$((failures + 1))
}
for ((free = 0; free <= max; free += 4)); do
  umount "$work/fs" 2>/dev/null || true
  mount -t tmpfs -o size=2m tmpfs "$work/fs"
  sortie run -s local_cwd --wait -- true >/dev/null 2>&1  # the store and directories exist
  available=$(df -k --output=avail "$work/fs" | tail -1)
  if ((available > free)); then
    dd if=/dev/zero of="$work/fs/fill" bs=1k count=$((available - free)) status=none 2>/dev/null ||
      true
  fi
  rc=0
  sortie run -s local_cwd -- true >"$work/out" 2>"$work/err" || rc=$?
  if ((rc != 0)); then
    refused=$((refused + 1))
    # Where it stopped: the store, the app's files, or the supervisor (its start failure).
    if grep -q "did not start" "$work/err"; then
      supervisor_refused=$((supervisor_refused + 1))
    elif grep -q "sortie.db" "$work/err"; then
      store_refused=$((store_refused + 1))
    fi
    if ! grep -Eq "No space left on device|disk full" "$work/err" ||
      ! grep -q "$work/fs/" "$work/err"; then
      fail "$free" "exit $rc without naming the full disk and its path: $(cat "$work/err")"
    fi
    continue
  fi
  started=$((started + 1))
  app_id=$(sed -n 's|^local_cwd://default/||p' "$work/out")
  state_file=$SORTIE_STATE_DIR/schedulers/local_cwd/logs/default/$app_id/state.json
  if ! grep -Eq '"supervisor":\{"pid":[1-9]' "$state_file" 2>/dev/null; then
    fail "$free" "exit 0 but no supervisor on record in $state_file: $(cat "$state_file" 2>&1)"
    continue
  fi
  terminal=""
  for ((try = 0; try < 100; try++)); do
    state=$(sortie status --json "local_cwd://default/$app_id" 2>/dev/null |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["state"])' 2>/dev/null || true)
    if [[ $state == SUCCEEDED || $state == FAILED || $state == CANCELLED ]]; then
      terminal=$state
      break
    fi
    sleep 0.1
  done
  [[ -n $terminal ]] || fail "$free" "exit 0 but app $app_id never reached a terminal state"
done
echo "disk_full_sweep: 0..$max KiB free: $started started (supervisor on record, terminal)," \
  "$refused refused naming the full disk ($store_refused by the store, $supervisor_refused by" \
  "the supervisor's start), $failures wrong"
((failures == 0))
