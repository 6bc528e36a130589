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
  for pid in $(marked); do kill -9 "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
# The pids whose environment carries the containment marker of an app that ran, in one scan.
marked() {
  python3 - "$work/ran" <<'PY'
import os, sys
ran = {"/" + app for app in os.listdir(sys.argv[1])}  # the marker is the app's directory
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        environ = open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace").split("\0")
    except OSError:
        continue
    markers = [e for e in environ if e.startswith("SORTIE_CONTAINMENT_MARKER=")]
    if any(marker[marker.rfind("/"):] in ran for marker in markers):
        print(pid)
PY
}
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
# Every app that ran is listed in state $1; prints the states of all apps; fails otherwise.
check_list() {
  LIST=$list python3 - "$work/ran" "$1" <<'PY'
import collections, json, os, sys
apps = {a["handle"].rsplit("/", 1)[1]: a["state"] for a in json.loads(os.environ["LIST"])["apps"]}
wrong = [f"app {app} ran but sortie list says {apps.get(app, 'MISSING')}, not {sys.argv[2]}"
         for app in os.listdir(sys.argv[1]) if apps.get(app) != sys.argv[2]]
stuck = [app for app, state in apps.items() if state in ("UNSUBMITTED", "SUBMITTED", "PENDING")]
print(len(apps), dict(collections.Counter(apps.values())))
for line in wrong + [f"app {app} stuck in {apps[app]}" for app in stuck]:
    print(line, file=sys.stderr)
sys.exit(1 if wrong or stuck else 0)
PY
}
recorded=$(check_list RUNNING) || failures=$((failures + 1))

# SIGKILL every supervisor; nothing of the apps may survive.
python3 - "$SORTIE_STATE_DIR" <<'PY'
import json, os, signal, sys
# followlinks: a running app's state.json is in its runtime directory, <app_dir>/run.
for root, _, files in os.walk(sys.argv[1], followlinks=True):
    if "state.json" in files:
        pid = json.load(open(os.path.join(root, "state.json")))["supervisor"]["pid"]
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
PY
sleep 0.5
# With a PID namespace nothing is left now; with the environment-marker fallback (namespaces
# refused) the next sortie command that reads the apps kills what is left.
before_any_command=$(marked | wc -l)
list=$(sortie list --json 2>/dev/null)
survivors=$(marked | wc -l)
check_list FAILED >/dev/null || failures=$((failures + 1))

echo "kills: $kills, apps that ran: $ran, apps recorded: $recorded,"   "reconciled by the next command: $(grep -c reconciled "$work/reconciled" || true),"   "processes surviving a SIGKILLed supervisor: $before_any_command before any sortie command," \
  "$survivors after one"
if [[ $survivors != 0 ]]; then
  echo "$survivors process(es) survived their supervisor" >&2
  failures=$((failures + 1))
fi
exit $((failures > 0))
