#!/usr/bin/env bash
# The first `sortie list` over a store of N local_cwd apps recorded RUNNING that have all ended
# since (nothing refreshed them), then `sortie list --limit 20` over the same N unrefreshed apps
# (issue 34 targets on a 2-core machine: 10,000 apps <= 1 s, 100,000 apps <= 5 s). Not a test:
# prints wall times. The apps are copies of one real finished app: its state.json under a new
# app id, registered with the local scheduler and recorded RUNNING in the store.
# Usage: tests/bench/list_bench.sh [BUILD_DIR] [N]
set -euo pipefail
build=${1:-build}
count=${2:-10000}
sortie=$(realpath "$build/stage/bin/sortie")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SORTIE_STATE_DIR=$work/state XDG_CONFIG_HOME=$work/cfg XDG_DATA_HOME=$work/data
cd "$work"
"$sortie" run -s local_cwd --wait -- true >/dev/null
fill() {
  python3 - "$work" "$count" <<'PY'
import glob, json, os, sqlite3, sys
work, count = sys.argv[1], int(sys.argv[2])
apps_dir = glob.glob(f"{work}/state/**/apps", recursive=True)[0]
first = sorted(os.listdir(apps_dir))[0]
template_dir = os.readlink(f"{apps_dir}/{first}")
state = json.load(open(f"{template_dir}/state.json"))
db = sqlite3.connect(f"{work}/state/sortie.db")
row = db.execute("SELECT * FROM apps WHERE app_id = ?", (first,)).fetchone()
columns = [c[1] for c in db.execute("PRAGMA table_info(apps)")]
rows = []
for i in range(count):
    app_id = f"bench-{i:06d}"
    app_dir = f"{work}/copies/{app_id}"
    os.makedirs(app_dir)
    state["app_id"] = app_id
    with open(f"{app_dir}/state.json", "w") as f:
        json.dump(state, f)
    os.symlink(app_dir, f"{apps_dir}/{app_id}")
    record = dict(zip(columns, row))
    record.update(handle=record["handle"].replace(first, app_id), app_id=app_id,
                  state="RUNNING", submitted_at=record["submitted_at"] + i)
    rows.append(tuple(record[c] for c in columns))
db.executemany(f"INSERT INTO apps VALUES ({','.join('?' * len(columns))})", rows)
db.commit()
PY
}
timed() {
  local start end
  start=$(date +%s.%N)
  "$sortie" "$@" >"$work/out"
  end=$(date +%s.%N)
  printf '%-28s %6.2f s  (%d lines)\n' "sortie $*" "$(echo "$end - $start" | bc)" \
    "$(wc -l <"$work/out")"
}
echo "machine: $(nproc) cores, $(uname -r), $(date -u +%Y-%m-%d); $count unrefreshed local_cwd apps"
fill
timed list --limit 20
timed list
timed list
