# Sourced by every script in packaging/ that installs Debian packages, so that a busy package
# manager (a fresh cloud machine's apt timers and unattended-upgrades hold its locks in its first
# minutes) is waited for instead of failing the script with "Could not get lock".
#   apt_get ARGS...        apt-get ARGS once no other process holds apt's or dpkg's locks, waiting
#                          up to $SORTIE_APT_LOCK_WAIT seconds (default 900) and saying on stderr
#                          who holds them
#   apt_install PACKAGE... installs with the present package index, else refreshes it and tries
#                          again; calls the sourcing script's fail() when both fail
# apt waits for dpkg's locks itself (DPkg::Lock::Timeout, apt >= 1.9.11), but silently, and not
# at all for the lists lock of `apt-get update` or the download lock, hence apt_wait first; the
# timeout still covers a dpkg lock taken between apt_wait and apt-get. Needs only bash,
# coreutils and /proc: it runs in a minimal Debian root before anything is installed.
apt_lock_wait=${SORTIE_APT_LOCK_WAIT:-900}
apt_locks=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock
  /var/cache/apt/archives/lock)

# "LOCK, held by PID (COMMAND)" for the first of apt_locks a process holds; fails when none is
# held. apt locks with fcntl, so a holder is in /proc/locks under the file's device and inode.
apt_lock_holder() {
  local lock major minor inode id kind pid file
  for lock in "${apt_locks[@]}"; do
    read -r major minor inode < <(stat -c '%Hd %Ld %i' "$lock" 2>/dev/null) || continue
    printf -v id '%02x:%02x:%s' "$major" "$minor" "$inode"
    # "N: POSIX ADVISORY WRITE PID MAJ:MIN:INODE START END"; a waiter's line has "->" after N:.
    while read -r _ kind _ _ pid file _; do
      [[ $kind != "->" && $file == "$id" ]] || continue
      echo "$lock, held by $pid ($(cat "/proc/$pid/comm" 2>/dev/null || echo unknown))"
      return 0
    done </proc/locks
  done
  return 1
}

# Waits while a process holds one of apt_locks, up to apt_lock_wait seconds, saying once per
# holder who it is; fails when one still holds it then.
apt_wait() {
  local holder said= deadline=$((SECONDS + apt_lock_wait))
  while holder=$(apt_lock_holder); do
    if ((SECONDS >= deadline)); then
      echo "${0##*/}: gave up after $apt_lock_wait s on the package manager's lock $holder" >&2
      return 1
    fi
    [[ $holder == "$said" ]] || echo "${0##*/}: waiting up to $((deadline - SECONDS)) s for" \
      "the package manager's lock $holder" >&2
    said=$holder
    sleep 1
  done
}

apt_get() {
  apt_wait || return
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$apt_lock_wait" "$@"
}

apt_install() {
  echo "installing: $*"
  # Waits here, where it can say so: the first try is quiet (a stale index fails it expectedly).
  apt_wait || fail "could not install $* with apt-get"
  apt_get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
    { apt_get update -qq && apt_get install -y -qq --no-install-recommends "$@"; } ||
    fail "could not install $* with apt-get"
}
