#!/usr/bin/env bash
# Findings F4 and F6 under load: SIGKILL `sortie run` at random points 0-20 ms into it, N times
# (default 100; docs/benchmarks.md records N=1000), then check that
#   1. every app that ran (its replica wrote a file) is in `sortie list` with its true state
#      (RUNNING: the replicas sleep), and no app is left UNSUBMITTED or SUBMITTED for good;
#   2. after a SIGKILL of each of their supervisors, no process of any app survives (setsid and
#      double-forked descendants included) and `sortie list` shows them FAILED.
# Uses the `sortie` on PATH. Usage: kill_submit_stress.sh [N]
set -euo pipefail
kills=${1:-100}
work=$(mktemp -d)
export SORTIE_STATE_DIR=$work/state XDG_CONFIG_HOME=$work/cfg XDG_DATA_HOME=$work/data
mkdir -p "$work/ran"
cleanup() {
  # Anything left is a failure reported below; never leave it running.
  for marker in "$work"/ran/*; do
    [[ -e $marker ]] && kill_marked "$(basename "$marker")" || true
  done
  rm -rf "$work"
}
# The pids whose environment carries the app's containment marker.
marked() {
  grep -lsxzF "SORTIE_CONTAINMENT_MARKER=$1" /proc/[0-9]*/environ 2>/dev/null |
    sed 's|/proc/\([0-9]*\)/environ|\1|' || true
}
kill_marked() { for pid in $(marked "$1"); do kill -9 "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# The replica records that it ran, leaves a setsid'd and a double-forked process behind, sleeps.
script='touch "$RAN/$SORTIE_APP_ID"; setsid sleep 600 </dev/null >/dev/null 2>&1 &
(sleep 600 </dev/null >/dev/null 2>&1 &); exec sleep 600'
for ((i = 0; i < kills; i++)); do
  RAN=$work/ran sortie run -s local_cwd -- sh -c "$script" >/dev/null 2>&1 &
  run=$!
  sleep "0.0$(printf '%02d' $((RANDOM % 21)))"
  kill -9 "$run" 2>/dev/null || true
  wait "$run" 2>/dev/null || true
done
sleep 1  # supervisors started by killed submitters finish starting

list=$(sortie list --json 2>"$work/reconciled")
ran=$(ls "$work/ran" | wc -l)
failures=0
check_state() {  # app_id expected
  local state
  state=$(python3 -c 'import json,sys
apps=[a for a in json.load(sys.stdin)["apps"] if a["handle"].endswith("/"+sys.argv[1])]
print(apps[0]["state"] if apps else "MISSING")' "$1" <<<"$list")
  if [[ $state != "$2" ]]; then
    echo "app $1 ran but sortie list says $state, not $2" >&2
    failures=$((failures + 1))
  fi
}
for marker in "$work"/ran/*; do [[ -e $marker ]] && check_state "$(basename "$marker")" RUNNING; done
stuck=$(python3 -c 'import json,sys
print(sum(a["state"] in ("UNSUBMITTED","SUBMITTED","PENDING") for a in json.load(sys.stdin)["apps"]))' <<<"$list")
if [[ $stuck != 0 ]]; then
  echo "$stuck app(s) stuck before RUNNING after their submitters died" >&2
  failures=$((failures + 1))
fi
recorded=$(python3 -c 'import json,sys; print(len(json.load(sys.stdin)["apps"]))' <<<"$list")

# SIGKILL every supervisor; nothing of the apps may survive.
for state in $(find "$SORTIE_STATE_DIR" -name state.json); do
  pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["supervisor"]["pid"])' "$state")
  [[ $pid != 0 ]] && kill -9 "$pid" 2>/dev/null || true
done
sleep 0.5
survivors=0
for marker in "$work"/ran/*; do
  [[ -e $marker ]] || continue
  left=$(marked "$(basename "$marker")" | wc -l)
  survivors=$((survivors + left))
done
list=$(sortie list --json 2>/dev/null)
for marker in "$work"/ran/*; do [[ -e $marker ]] && check_state "$(basename "$marker")" FAILED; done

echo "kills: $kills, apps that ran: $ran, apps recorded: $recorded," \
  "reconciled by the next command: $(grep -c reconciled "$work/reconciled" || true)," \
  "processes surviving a SIGKILLed supervisor: $survivors"
if [[ $survivors != 0 ]]; then
  echo "$survivors process(es) survived their supervisor" >&2
  failures=$((failures + 1))
fi
exit $((failures > 0))
