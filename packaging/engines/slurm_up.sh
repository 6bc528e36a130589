#!/usr/bin/env bash
# Brings up the Slurm 22.05 cluster the slurm scheduler tests run against (Debian 12, root, no
# systemd, no cgroups), on this one machine:
#   - munged, MariaDB on 127.0.0.1 and slurmdbd on 127.0.0.1:6819, so sacct works;
#   - slurmctld on 127.0.0.1:6817 and two slurmd daemons: node `$(hostname -s)` (port 6818) and a
#     second node `$(hostname -s)-2` (port 6820) on the same host, so that heterogeneous and
#     multi-node jobs can be placed;
#   - partition `debug` (default) holding both nodes; backfill every 2 s so het jobs start fast.
# Idempotent: a second run only checks, and restarts slurmctld when the generated config changed.
# Packages come from packaging/deps.sh (group test). The config is documented in tests/slurm/README.md.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

fail() {
  echo "slurm_up.sh: $*" >&2
  exit 1
}
for tool in slurmctld slurmd sbatch munged slurmdbd mariadbd; do
  command -v "$tool" >/dev/null || bash "$(dirname "$0")/../deps.sh" test >/dev/null
done
running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
retry() { # retry <tries> <command...>: half a second between tries
  local tries=$1
  shift
  for _ in $(seq "$tries"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
  return 1
}

# munge: every daemon and client authenticates with it.
mkdir -p /etc/munge /run/munge /var/lib/munge /var/log/munge
[ -s /etc/munge/munge.key ] || mungekey --create --force
chown munge:munge /etc/munge/munge.key /run/munge /var/lib/munge /var/log/munge
chmod 400 /etc/munge/munge.key
munge_ok() { munge -n | unmunge; }
if ! munge_ok >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged
  retry 20 munge_ok || fail "munged did not start"
fi

# Accounting: MariaDB (its own pid file, loopback only) and slurmdbd.
mkdir -p /run/mysqld /etc/slurm /run/slurm /var/log/slurm /var/spool/slurmctld/sortie /var/spool/slurmd
chown mysql:mysql /run/mysqld
db_ok() { mariadb -uroot -e 'select 1'; }
if ! db_ok >/dev/null 2>&1; then
  [ -d /var/lib/mysql/mysql ] || mariadb-install-db --user=mysql --datadir=/var/lib/mysql >/dev/null
  nohup mariadbd --user=mysql --bind-address=127.0.0.1 --pid-file=/run/mysqld/mysqld.pid \
    >/var/log/slurm/mariadb.log 2>&1 &
  retry 60 db_ok || fail "MariaDB did not start: $(tail -5 /var/log/slurm/mariadb.log)"
fi
mariadb -uroot -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
  CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'sortie-slurm';
  ALTER USER 'slurm'@'localhost' IDENTIFIED BY 'sortie-slurm';
  GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';"
dbd_conf="AuthType=auth/munge
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=6819
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=sortie-slurm
StorageLoc=slurm_acct_db
PidFile=/run/slurm/slurmdbd.pid
LogFile=/var/log/slurm/slurmdbd.log"
if [ "$(cat /etc/slurm/slurmdbd.conf 2>/dev/null)" != "$dbd_conf" ]; then
  printf '%s\n' "$dbd_conf" >/etc/slurm/slurmdbd.conf
  chmod 600 /etc/slurm/slurmdbd.conf
  if running /run/slurm/slurmdbd.pid; then kill "$(cat /run/slurm/slurmdbd.pid)" && sleep 1; fi
fi
running /run/slurm/slurmdbd.pid || slurmdbd
dbd_port_open() { exec 3<>/dev/tcp/127.0.0.1/6819; }
retry 30 dbd_port_open || fail "slurmdbd did not listen: $(tail -5 /var/log/slurm/slurmdbd.log)"

# slurm.conf: both nodes are this host; each advertises what `slurmd -C` sees, with 1 GiB memory
# so RealMemory never exceeds what the node reports.
host=$(hostname -s)
hardware=$(slurmd -C | head -1 | sed -E 's/^NodeName=[^ ]* //; s/RealMemory=[0-9]+/RealMemory=1024/')
conf="# Written by packaging/engines/slurm_up.sh (see tests/slurm/README.md).
ClusterName=sortie
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=/var/spool/slurmctld/sortie
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd-%n.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=2,sched_interval=5
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=6819
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
JobCompType=jobcomp/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
MaxArraySize=1001
NodeName=$host NodeAddr=127.0.0.1 $hardware State=UNKNOWN
NodeName=$host-2 NodeHostname=$host NodeAddr=127.0.0.1 Port=6820 $hardware State=UNKNOWN
PartitionName=debug Nodes=$host,$host-2 Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
if [ "$(cat /etc/slurm/slurm.conf 2>/dev/null)" != "$conf" ]; then
  printf '%s\n' "$conf" >/etc/slurm/slurm.conf
  if running /run/slurm/slurmctld.pid; then # 22.05 cannot add nodes on reconfigure
    scontrol shutdown || true
    for pid_file in /run/slurm/slurmctld.pid /run/slurm/slurmd-*.pid; do
      for _ in $(seq 40); do running "$pid_file" || break; sleep 0.5; done
    done
  fi
fi
# slurmctld registers with slurmdbd under the cluster name, which must exist first.
sacctmgr -i -n list cluster format=cluster | grep -qw sortie || sacctmgr -i add cluster sortie >/dev/null
running /run/slurm/slurmctld.pid || slurmctld || fail "slurmctld did not start: $(tail -3 /var/log/slurm/slurmctld.log)"
ctld_up() { scontrol ping | grep -q UP; }
retry 60 ctld_up || fail "slurmctld did not answer: $(tail -5 /var/log/slurm/slurmctld.log)"
running "/run/slurm/slurmd-$host.pid" || slurmd
running "/run/slurm/slurmd-$host-2.pid" || slurmd -N "$host-2"

# Both nodes idle; a node left DOWN by an earlier run is resumed.
not_ready() { sinfo -h -N -o '%N %t' | grep -v -E ' (idle|mix|alloc)$'; }
for _ in $(seq 60); do
  stuck=$(not_ready || true)
  [ -z "$stuck" ] && break
  awk '$2 ~ /down|drain/ {print $1}' <<<"$stuck" |
    xargs -r -I{} scontrol update nodename={} state=resume >/dev/null 2>&1 || true
  sleep 1
done
[ -z "$(not_ready || true)" ] || fail "nodes not ready: $(not_ready)"
echo "slurm_up.sh: $(sinfo -V), nodes $(sinfo -h -o %N), accounting on"
