#!/usr/bin/env bash
# Issue 26 A6 under load: CALLS sortie commands (default 1000; docs/benchmarks.md records 8,000)
# from WORKERS concurrent workers (default 50) against one store. Each worker runs `sortie run -s
# local_cwd -- true` and reads its apps back with `status`, `log` and `list --limit 20`, in turn.
# Every call must exit 0, and none may say "reconciled" on stderr: every submitter here confirms
# its submission, so such a line is false (and the record it settled was rewritten).
# Uses the `sortie` on PATH. Usage: concurrent_commands_stress.sh [CALLS] [WORKERS]
set -euo pipefail
calls=${1:-1000}
workers=${2:-50}
work=$(mktemp -d)
export SORTIE_STATE_DIR=$work/state XDG_CONFIG_HOME=$work/cfg XDG_DATA_HOME=$work/data
trap 'rm -rf "$work"' EXIT

# Worker $1 makes $2 calls; it writes "COMMAND EXIT" per call to $work/$1.calls, and the stderr
# of each call that failed or said anything to $work/$1.said.
worker() {
  local id=$1 count=$2 err=$work/$1.err kinds=(run status log list) handles=() handle="" out
  local command i rc
  for ((i = 0; i < count; i++)); do
    command=${kinds[(i + id) % 4]}
    if ((${#handles[@]} == 0)); then command=run; else handle=${handles[RANDOM % ${#handles[@]}]}; fi
    rc=0
    case $command in
      run) out=$(sortie run -s local_cwd -- true 2>"$err") || rc=$? ;;
      status) sortie status "$handle" >/dev/null 2>"$err" || rc=$? ;;
      log) sortie log "$handle" >/dev/null 2>"$err" || rc=$? ;;
      list) sortie list --limit 20 >/dev/null 2>"$err" || rc=$? ;;
    esac
    # The handle is run's last line of output.
    [[ $command == run && $rc == 0 ]] && handles+=("${out##*$'\n'}")
    echo "$command $rc" >>"$work/$id.calls"
    if [[ $rc != 0 || -s $err ]]; then
      [[ $command == run || $command == list ]] && handle=""
      { echo "== sortie $command $handle: exit $rc"; cat "$err"; } >>"$work/$id.said"
    fi
  done
}

start=$EPOCHREALTIME
for ((w = 0; w < workers; w++)); do
  worker "$w" $((calls / workers + (w < calls % workers ? 1 : 0))) &
done
wait
seconds=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

cat "$work"/*.calls >"$work/calls"
cat "$work"/*.said >"$work/said" 2>/dev/null || true
failed=$(awk '$2 != 0' "$work/calls" | wc -l)
reconciled=$(grep -c 'reconciled' "$work/said" || true)
echo "calls: $(wc -l <"$work/calls") ($(awk '{print $1}' "$work/calls" | sort | uniq -c |
  awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')), workers: $workers, wall: ${seconds}s," \
  "non-zero exits: $failed, \"reconciled\" lines: $reconciled"
if [[ $failed != 0 || $reconciled != 0 ]]; then
  echo "calls that failed (first 20):" >&2
  grep -A 2 '^== .*: exit [1-9]' "$work/said" | head -n 60 >&2 || true
  echo "\"reconciled\" lines (first 10):" >&2
  grep 'reconciled' "$work/said" | head -n 10 >&2 || true
  exit 1
fi
