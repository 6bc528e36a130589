#!/bin/bash
#SBATCH --job-name=train
#SBATCH --comment=sortie-app=train-x1
#SBATCH --output=/state/jobs/train-x1/slurm-%j.out
#SBATCH --chdir=/work/dir
#SBATCH --requeue
# role main
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
set -u
job_dir='/state/jobs/train-x1'
task='/opt/sortie/libexec/sortie/sortie-slurm-task'
ledger="$job_dir/attempts"
max_failures=0 max_preemptions=3 max_timeouts=0
# The rank-0 host: the host of the first node of the first role.
first_node=$('scontrol' show hostnames "${SLURM_JOB_NODELIST_HET_GROUP_0:-$SLURM_JOB_NODELIST}" | head -n 1)
[[ $('scontrol' -o show node "$first_node") =~ NodeHostName=([^ ]+) ]] && first_node=${BASH_REMATCH[1]}
export SORTIE_RANK0_HOST=$first_node MASTER_ADDR=$first_node
# The ledger has a line per attempt start and end; a start without an end was requeued.
touch "$ledger"
count() { grep -c -- "$1" "$ledger"; }
last=$(tail -n 1 "$ledger")
if [[ $last == start* ]]; then echo "end ${last#start } preempted" >>"$ledger"; fi
if (($(count ' preempted$') > max_preemptions)); then
  echo "sortie: requeued more than max_preemptions=$max_preemptions times" >&2
  exit 1
fi
timed_out=0
trap 'timed_out=1; kill -USR1 $(jobs -p) 2>/dev/null' USR1
while :; do
  SORTIE_FREE_PORT=$("$task" --free-port) || exit 1
  export SORTIE_FREE_PORT
  attempt=$(count '^start ')
  echo "start $attempt" >>"$ledger"
  export SORTIE_ATTEMPT=$attempt
  srun --ntasks=1 --cpus-per-task=1 --kill-on-bad-exit=0 "$task" "$job_dir" 'main' &
  status=0
  for step in $(jobs -p); do
    while :; do wait "$step"; code=$?; kill -0 "$step" 2>/dev/null || break; done
    ((code != 0)) && status=$code
  done
  if ((timed_out)); then
    echo "end $attempt timeout" >>"$ledger"
    if (($(count ' timeout$') <= max_timeouts)); then 'scontrol' requeue "$SLURM_JOB_ID"; exit "$status"; fi
    echo "sortie: reached the time limit more than max_timeouts=$max_timeouts times" >&2
    exit 1
  fi
  if ((status == 0)); then echo "end $attempt succeeded" >>"$ledger"; exit 0; fi
  if ((status == 143 || status == 137)); then sleep 5; fi
  echo "end $attempt failed $status" >>"$ledger"
  if (($(count ' failed ') > max_failures)); then exit "$status"; fi
done
# tasks/main/0.argv, one entry a line:
apptainer
exec
--pwd
/work/dir
docker://registry.local/train:1
python
-m
t
