#!/usr/bin/env bash
# Issue 16 point 4: readers never need to write (docs/store.md, STORE-R1..R5). On a full disk —
# a tmpfs filled to its last byte, mounted in a private user and mount namespace so that no
# privilege is needed — `list`, `status`, `log`, `experiments list` and `experiments show` print
# what was recorded, also after the store's WAL files were removed; a writer (`run`) fails with
# "disk full writing STORE" and exit 3 (docs/exit-status.md); nothing recorded is lost; and a
# reader where no store exists says there are no apps and creates nothing.
# Usage: readers_full_disk_test.sh PREFIX (the installed sortie).
set -euo pipefail

if [[ "${1:-}" != --inside ]]; then
  if ! unshare --user --map-root-user --mount true 2>/dev/null; then
    if [[ "${CI:-}" == true ]]; then
      echo "FAIL: user namespaces are not available here (CI=true: a missing engine fails)" >&2
      exit 1
    fi
    echo "SKIP: user namespaces are not available here"
    exit 77
  fi
  exec unshare --user --map-root-user --mount bash "$0" --inside "$1"
fi
prefix=$2
export PATH="$prefix/bin:$PATH"

disk=$(mktemp -d /tmp/sortie-full-disk-XXXXXX)
output=$(mktemp -d /tmp/sortie-full-disk-output-XXXXXX)  # off the full disk
cleanup() {
  cd /
  umount "$disk" 2>/dev/null || true
  rm -rf "$disk" "$output"
}
trap cleanup EXIT
mount -t tmpfs -o size=8m tmpfs "$disk"
export SORTIE_STATE_DIR="$disk/state" HOME="$disk/home" XDG_CONFIG_HOME="$disk/home/.config"
unset SORTIE_SESSION XDG_STATE_HOME
mkdir -p "$disk/cwd" "$HOME"
cd "$disk/cwd"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
# expect_output "what" "needle" command...: the command exits 0 and prints the needle on stdout.
expect_output() {
  local what=$1 needle=$2 out
  shift 2
  out=$("$@" 2>"$output/err") || fail "$what exited $?: $(cat "$output/err")"
  [[ "$out" == *"$needle"* ]] || fail "$what printed no '$needle':"$'\n'"$out"
}
fill_disk() {
  dd if=/dev/zero of="$disk/fill" bs=64k status=none 2>/dev/null || true
  dd if=/dev/zero of="$disk/fill-rest" bs=1 status=none 2>/dev/null || true
  [[ $(df --output=avail "$disk" | tail -1) -eq 0 ]] || fail "the tmpfs is not full"
}

handle=$(sortie run --wait -s local_cwd -- echo hello from the full disk | head -1)
[[ "$handle" == local_cwd://* ]] || fail "run printed no handle: $handle"
printf 'title: on a full disk\nexecutables: {t: {binary: /bin/true}}\njob: {executable: t}\n%s\n' \
  'sweep: {product: {x: [1, 2]}}' >experiment.yaml
sortie launch --wait experiment.yaml >/dev/null || fail "launch --wait failed"
apps_before=$(sortie list --json)

readers_answer() {
  expect_output "list ($1)" "$handle" sortie list
  [[ "$(sortie list --json)" == "$apps_before" ]] || fail "list --json changed ($1)"
  expect_output "status ($1)" "SUCCEEDED" sortie status "$handle"
  expect_output "log ($1)" "hello from the full disk" sortie log "$handle"
  expect_output "experiments list ($1)" "on a full disk" sortie experiments list
  expect_output "experiments show ($1)" "state: SUCCEEDED" sortie experiments show 1
}

fill_disk
readers_answer "full disk"
if sortie run -s local_cwd -- echo never >"$output/out" 2>"$output/err"; then
  fail "run succeeded on a full disk"
else
  status=$?
fi
[[ $status -eq 3 ]] || fail "run on a full disk exited $status, not 3: $(cat "$output/err")"
grep -q "disk full writing $SORTIE_STATE_DIR/sortie.db" "$output/err" ||
  fail "run's error names no full disk and store: $(cat "$output/err")"
readers_answer "after the refused run"

# A store last closed by a program that removes its WAL files (an SQLite client without
# SQLITE_FCNTL_PERSIST_WAL): readers
# cannot create them on a full disk and read the database file alone.
rm -f "$disk/fill" "$disk/fill-rest"
python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' \
  "$SORTIE_STATE_DIR/sortie.db"
rm -f "$SORTIE_STATE_DIR/sortie.db-wal" "$SORTIE_STATE_DIR/sortie.db-shm"
fill_disk
store_sum=$(sha256sum <"$SORTIE_STATE_DIR/sortie.db")
readers_answer "full disk, no WAL files"
[[ $(sha256sum <"$SORTIE_STATE_DIR/sortie.db") == "$store_sum" ]] || fail "a reader wrote the store"
[[ ! -s "$SORTIE_STATE_DIR/sortie.db-wal" ]] || fail "a reader wrote a WAL"

# No store yet: no apps, and nothing created.
SORTIE_STATE_DIR="$disk/none" sortie list >"$output/out" 2>"$output/err" ||
  fail "list without a store failed: $(cat "$output/err")"
[[ $(grep -c . "$output/out") -le 1 ]] || fail "list without a store listed apps: $(cat "$output/out")"
[[ ! -e "$disk/none" ]] || fail "list created $disk/none"
echo "PASS"
