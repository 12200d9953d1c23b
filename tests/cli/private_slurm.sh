#!/usr/bin/env bash
# A private one-node Slurm for a test, on loopback, everything in one directory: its own munge
# (own key and socket), slurmctld and slurmd in the foreground (-D), a generated slurm.conf.
# Nothing of the system's Slurm or munge is used or touched.
#
#   private_slurm.sh start DIR CTLD_PORT SLURMD_PORT OWNER_PID  # prints SLURM_CONF=DIR/slurm.conf when up
#   private_slurm.sh stop DIR                                     # stops every daemon start started
#
# The daemons also stop by themselves when OWNER_PID (the test) is gone, however it ended: a
# test killed by its timeout leaves nothing running.
#
# start exits 0 once the node answers, 3 when Slurm or munge is not installed or cannot start
# here (its last log lines on stderr; everything it started is stopped again), 2 on misuse.
set -uo pipefail

die() { echo "private_slurm: $*" >&2; exit 2; }

stop() {
  local dir=$1 name pid pids=()
  # Every daemon told at once, then each waited for (killed after 5 s): none outlives the test.
  for name in watchdog slurmd slurmctld munged; do
    [[ -f "$dir/$name.pid" ]] || continue
    pid=$(cat "$dir/$name.pid")
    rm -f "$dir/$name.pid"
    [[ "$pid" =~ ^[0-9]+$ && "$pid" != "$BASHPID" ]] && kill -TERM "$pid" 2>/dev/null && pids+=("$pid")
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
  done
  return 0
}

cannot() {
  echo "private_slurm: $1" >&2
  local log
  for log in "$dir"/munged.log "$dir"/slurmctld.log "$dir"/slurmd.log; do
    [[ -s "$log" ]] && { echo "--- $log (end)" >&2; tail -n 5 "$log" >&2; }
  done
  stop "$dir"
  exit 3
}

# Starts a daemon in the background, its pid kept for stop (the daemon's own pid file would
# name a child for munged; this is the process we started and must end).
launch() {
  local name=$1
  shift
  "$@" >>"$dir/$name.out" 2>&1 &
  echo $! >"$dir/$name.pid"
}

write_conf() {
  local ctld_port=$1 slurmd_port=$2
  cat >"$dir/slurm.conf" <<EOF
ClusterName=pmixflowtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pidfile
SlurmdPidFile=$dir/slurmd.pidfile
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
# Schedule as soon as a task ends (the default waits 2 s between passes): the test stays short.
SchedulerParameters=sched_min_interval=100000,batch_sched_delay=0
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
LaunchParameters=enable_nss_slurm
MinJobAge=30
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
}

# Stops the daemons once the owner is gone.
watch_owner() {
  local owner=$1
  (
    trap '' HUP
    while kill -0 "$owner" 2>/dev/null && [[ -f "$dir/munged.pid" ]]; do sleep 1; done
    stop "$dir"
  ) </dev/null >/dev/null 2>&1 &
  echo $! >"$dir/watchdog.pid"
}

start() {
  local ctld_port=$1 slurmd_port=$2 owner=$3
  for tool in munged slurmctld slurmd sbatch squeue sinfo; do
    command -v "$tool" >/dev/null || cannot "$tool is not installed (apt-get install slurmctld slurmd slurm-client munge)"
  done
  mkdir -p "$dir/state" "$dir/spool" || cannot "cannot make $dir"
  chmod 0700 "$dir"
  head -c 1024 /dev/urandom >"$dir/munge.key" && chmod 0600 "$dir/munge.key"
  launch munged munged --foreground --force --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
    --pid-file="$dir/munged.pidfile" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed"
  watch_owner "$owner"
  for _ in $(seq 50); do [[ -S "$dir/munge.socket" ]] && break; sleep 0.1; done
  [[ -S "$dir/munge.socket" ]] || cannot "munged did not start"
  write_conf "$ctld_port" "$slurmd_port"
  export SLURM_CONF="$dir/slurm.conf"
  launch slurmctld slurmctld -D -i -f "$SLURM_CONF"
  launch slurmd slurmd -D -N localhost -f "$SLURM_CONF"
  # Up when the node is idle: the controller runs and the node registered with it.
  for _ in $(seq 150); do
    kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null || cannot "slurmctld exited"
    kill -0 "$(cat "$dir/slurmd.pid")" 2>/dev/null || cannot "slurmd exited"
    if sinfo -h -N -o %t 2>/dev/null | grep -qx idle; then
      echo "SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 0.2
  done
  cannot "the node did not become idle within 30 s"
}

case "${1:-}" in
  start) (($# == 5)) || die "usage: $0 start DIR CTLD_PORT SLURMD_PORT OWNER_PID"; dir=$2; start "$3" "$4" "$5" ;;
  stop) (($# == 2)) || die "usage: $0 stop DIR"; stop "$2" ;;
  *) die "usage: $0 start DIR CTLD_PORT SLURMD_PORT OWNER_PID | stop DIR" ;;
esac
