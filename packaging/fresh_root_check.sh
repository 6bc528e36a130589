#!/usr/bin/env bash
# Checks the README's promise on a brand-new machine, which a machine in use for a while cannot:
# its collected packages hide a missing install step.
#
#   1. In a minimal Debian 12 root (mmdebstrap), on a clone of the committed HEAD, runs the
#      README's first command exactly as README.md writes it (the quickstart), while another
#      process holds dpkg's lock for its first 20 s, as a fresh cloud machine's apt timers do.
#   2. There, makes the .deb with CPack (cd build && cpack -G DEB).
#   3. In a second brand-new root, where only what the package declares gets installed, runs
#      apt-get install ./sortie_*.deb, then as a plain user from /tmp: a job with /usr/bin/sortie,
#      `sortie list`, a job with --isolate-plugins and `sortie plugins doctor`.
#
# Run as root from a clone (it chroots and mounts): bash packaging/fresh_root_check.sh
# Exit status 0 when every phase passed; the phase that failed is named last otherwise.
#   SORTIE_FRESH_CACHE  keeps the root tarball, remade weekly (default /var/cache/sortie-fresh-root)
#   SORTIE_FRESH_DIR    where the roots are unpacked (default /var/tmp/sortie-fresh-root)
#   SORTIE_FRESH_KEEP=1 keeps the roots afterwards, to look inside
#   SORTIE_FRESH_CCACHE=0 does not share the host's ccache with the root's build
# The host's ccache, when it has one, is mounted at the same path in the root and the clone sits
# at the same path as this tree, so the root's build hits what the host's build compiled.
# Limits: a chroot, not a VM: the host's kernel, no systemd; nothing here needs Docker.
set -euo pipefail
source "$(dirname "$0")/apt.sh"

say() { echo "fresh-root: $*"; }
fail() {
  echo "fresh-root: FAILED: $*" >&2
  exit 1
}

[ "$(id -u)" = 0 ] || fail "run me as root: I chroot and mount"
top=$(cd "$(dirname "$0")/.." && pwd -P)
commit=$(git -C "$top" rev-parse HEAD)
git -C "$top" diff --quiet HEAD ||
  say "note: uncommitted changes are not checked; the roots get commit ${commit:0:12}"

cache=${SORTIE_FRESH_CACHE:-/var/cache/sortie-fresh-root}
work=${SORTIE_FRESH_DIR:-/var/tmp/sortie-fresh-root}
user=fresh-user
lock_hold=20
mkdir -p "$cache" "$work"

phase="start"
phase_began=$SECONDS
phase_finished=1
timings=()
begin() {
  phase=$1
  phase_began=$SECONDS
  phase_finished=0
  say "== $phase"
}
finish() {
  timings+=("$(printf '%5d s  %s' $((SECONDS - phase_began)) "$phase${1:-}")")
  phase_finished=1
}

roots=()
# Only processes started inside our roots, found by their root directory.
stop_processes_in() {
  local link pid
  for link in /proc/[0-9]*/root; do
    [ "$(readlink "$link" 2>/dev/null)" = "$1" ] || continue
    pid=${link#/proc/}
    kill -KILL "${pid%/root}" 2>/dev/null || true
  done
}
mounts_under() { awk -v prefix="$1/" 'index($5, prefix) == 1 { print $5 }' /proc/self/mountinfo; }
cleanup() {
  local status=$? root failed_phase=$phase
  ((phase_finished)) || finish " (failed)"
  begin "cleanup: stop, unmount, remove the roots"
  for root in "${roots[@]}"; do
    stop_processes_in "$root"
    mounts_under "$root" | sort -r | while read -r target; do umount -l "$target" || true; done
    if [ -n "$(mounts_under "$root")" ]; then
      say "left $root in place: something is still mounted under it"
    elif [ "${SORTIE_FRESH_KEEP:-}" = 1 ]; then
      say "kept $root"
    else
      rm -rf --one-file-system "$root"
    fi
  done
  finish
  if ((${#timings[@]})); then
    say "phase timings:"
    printf '  %s\n' "${timings[@]}"
  fi
  if [ "$status" = 0 ]; then
    say "passed for commit ${commit:0:12}"
  else
    say "exit status $status during: $failed_phase"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The host's Debian sources (so a CI mirror is used), else deb.debian.org.
mirrors=()
grep -qs '^deb ' /etc/apt/sources.list && mirrors+=(/etc/apt/sources.list)
[ -f /etc/apt/sources.list.d/debian.sources ] && mirrors+=(/etc/apt/sources.list.d/debian.sources)
((${#mirrors[@]})) || mirrors=(http://deb.debian.org/debian)

begin "a minimal Debian 12 root (cached weekly)"
tarball=$cache/bookworm.tar
if [ ! -s "$tarball" ] || [ -n "$(find "$tarball" -mtime +7)" ]; then
  command -v mmdebstrap >/dev/null || {
    apt_get update -qq && apt_get install -y -qq mmdebstrap
  } || fail "could not install mmdebstrap"
  # git and ca-certificates: whoever follows the README has cloned the repository.
  part=$tarball.$$.part
  if ! mmdebstrap --quiet --format=tar --variant=apt --include=ca-certificates,git bookworm \
    "$part" "${mirrors[@]}" </dev/null; then
    rm -f "$part"
    fail "mmdebstrap could not make a Debian 12 root"
  fi
  mv "$part" "$tarball"
fi
finish

# Unpacks a brand-new root named after $1 into $root, with /proc, /sys and /dev mounted.
new_root() {
  root=$(mktemp -d "$work/$1.XXXXXX")
  roots+=("$root")
  tar -xf "$tarball" -C "$root"
  cp -L --remove-destination /etc/resolv.conf "$root/etc/resolv.conf"
  # An apt proxy the host needs is needed in the root too.
  { grep -lis 'proxy' /etc/apt/apt.conf.d/* || true; } | xargs -r cp -t "$root/etc/apt/apt.conf.d/"
  mount -t proc proc "$root/proc"
  local tree
  for tree in sys dev; do
    mount --rbind "/$tree" "$root/$tree"
    mount --make-rslave "$root/$tree" # unmounting ours must not unmount the host's
  done
}

forwarded=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  TERM=dumb "CI=${CI:-}")
# The host's locale as it is: ccache's keys include it, so another one would recompile everything.
for name in LANG LC_ALL LC_CTYPE LC_MESSAGES; do
  if [ -n "${!name:-}" ]; then forwarded+=("$name=${!name}"); fi
done
in_root() { chroot "$1" /usr/bin/env -i "${forwarded[@]}" /bin/bash -euo pipefail -c "$2"; }

begin "build root: unpack, clone ${commit:0:12}"
new_root build
build_root=$root
clone=$build_root$top
mkdir -p "$(dirname "$clone")"
git clone --quiet --no-checkout "$top" "$clone"
git -C "$clone" fetch --quiet "$top" HEAD
git -C "$clone" checkout --quiet --detach FETCH_HEAD
[ "$(git -C "$clone" rev-parse HEAD)" = "$commit" ] || fail "the clone is not at HEAD ($commit)"
stats_log=/tmp/ccache-stats.log
if [ "${SORTIE_FRESH_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null; then
  ccache_dir=$(ccache --get-config cache_dir)
  mkdir -p "$ccache_dir" "$build_root$ccache_dir"
  mount --bind "$ccache_dir" "$build_root$ccache_dir"
  # The host's settings (base dir, hashing) make the same keys in the root.
  mapfile -t ccache_settings < <(env | grep '^CCACHE_' | grep -v '^CCACHE_DIR=' || true)
  forwarded+=("${ccache_settings[@]}" "CCACHE_DIR=$ccache_dir" "CCACHE_STATSLOG=$stats_log")
  say "sharing the host's ccache $ccache_dir"
fi
finish

readme_command=$(awk '/^```/ { if (inside) exit; inside = 1; next } inside && NF { print; exit }' \
  "$clone/README.md" | sed 's/[[:space:]]\+#.*$//')
[ -n "$readme_command" ] || fail "README.md has no command in its first fenced block"
begin "README's first command, the dpkg lock held for its first $lock_hold s: $readme_command"
# A fresh cloud machine's apt timers hold dpkg's lock in its first minutes: another process holds
# it here while the command starts, which must wait for it (packaging/apt.sh) and then succeed.
# apt locks with fcntl (flock(1) would not stop it); perl-base is on every Debian; the struct
# flock is 64-bit Linux's: type, whence, padding, start, length (0: the whole file), pid.
lock=$build_root/var/lib/dpkg/lock-frontend
exec {holder}< <(perl -MFcntl -e 'open(my $f, ">>", $ARGV[0]) or die "$ARGV[0]: $!\n";
  fcntl($f, F_SETLK, pack("s s x4 q q i x4", F_WRLCK, SEEK_SET, 0, 0, 0)) or die "lock: $!\n";
  $| = 1; print "held\n"; sleep $ARGV[1]' "$lock" "$lock_hold")
read -r -u "$holder" _ || fail "could not hold $lock"
readme_log=$build_root/tmp/readme-command.log
in_root "$build_root" "cd $(printf %q "$top") && $readme_command" 2>&1 | tee "$readme_log" ||
  fail "the README's first command \`$readme_command\` failed on a fresh Debian 12 (output above)"
exec {holder}<&-
grep -q "waiting .* lock /var/lib/dpkg/lock-frontend, held by" "$readme_log" ||
  fail "the README's first command did not wait for the dpkg lock another process held"
if [ -s "$build_root$stats_log" ]; then
  CCACHE_STATSLOG=$build_root$stats_log ccache --show-log-stats | grep -E '^ *(Hits|Misses):' |
    sed 's/^ */fresh-root: ccache in the root: /'
fi
finish

begin "cpack -G DEB in the build root"
in_root "$build_root" "cd $(printf %q "$top/build") && cpack -G DEB >/dev/null" ||
  fail "cpack could not make the .deb in the fresh root (its errors are above)"
packages=("$clone"/build/sortie_*.deb)
[ -f "${packages[0]}" ] || fail "cpack made no build/sortie_*.deb"
depends=$(dpkg-deb -f "${packages[0]}" Depends)
say "$(basename "${packages[0]}"), Depends: ${depends:-none}"
finish

begin "run root: apt-get install ./$(basename "${packages[0]}")"
new_root run
run_root=$root
cp "${packages[0]}" "$clone/packaging/apt.sh" "$run_root/tmp/"
in_root "$run_root" "cd /tmp && source apt.sh && apt_get update -qq &&
  apt_get install -y -qq --no-install-recommends ./sortie_*.deb &&
  useradd --create-home $user" || fail "apt-get could not install the .deb in a fresh root"
finish

begin "installed sortie, as $user from /tmp: run, list, isolated run, plugins doctor"
as_user() {
  chroot "$run_root" /usr/sbin/runuser -u "$user" -- /usr/bin/env -i HOME="/home/$user" \
    PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 /bin/bash -euo pipefail -c "cd /tmp && $1"
}
installed=$(as_user 'command -v sortie') || true
[ "$installed" = /usr/bin/sortie ] || fail "sortie on PATH is '$installed', not /usr/bin/sortie"
job=$(as_user 'sortie run -s local_cwd --wait --log utils.echo --msg hi 2>&1') ||
  fail "the installed sortie could not run a job: $job"
echo "$job"
grep -qx 'echo/0 hi' <<<"$job" || fail "the job's log has no line 'echo/0 hi'"
listed=$(as_user 'sortie list 2>&1') || fail "the installed \`sortie list\` failed: $listed"
echo "$listed"
grep -q 'local_cwd://default/echo-' <<<"$listed" || fail "\`sortie list\` does not show the job"
# The plugin-host helper in libexec/ is found from the installed executable.
isolated=$(as_user 'sortie --isolate-plugins run -s local_cwd --wait --log utils.echo \
  --msg isolated 2>&1') || fail "the installed sortie could not run an isolated job: $isolated"
echo "$isolated"
grep -qx 'echo/0 isolated' <<<"$isolated" || fail "the isolated job's log has no 'echo/0 isolated'"
as_user 'sortie plugins doctor' || fail "a plugin of the installed package does not load (above)"
# The Python package is in dist-packages, where Debian's python3 finds it: no pip.
python=$(as_user 'python3 -c "import sortie.xm, sortie.runner; print(sortie.xm.Job.__name__)" 2>&1') ||
  fail "the installed Python package does not import: $python"
finish
