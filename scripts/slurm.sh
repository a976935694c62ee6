#!/usr/bin/env bash
# A single-node Slurm cluster on 127.0.0.1 for running hpgraph jobs (docs/runtimes.md).
#
#   scripts/slurm.sh start  [--port P] [--dir D] [--no-install]
#   scripts/slurm.sh status [--port P] [--dir D]
#   scripts/slurm.sh stop   [--port P] [--dir D]
#
# start installs Debian's slurm-wlm when slurmctld is missing (apt-get; sudo when not
# root; --no-install: fail instead), writes D/slurm.conf (one node "localhost" on
# 127.0.0.1 with this machine's CPUs and memory from `slurmd -C`, partition "debug",
# auth/none: no munge), starts slurmctld (port P) and slurmd (port P+1), and returns
# once `sinfo` shows the node idle. State, spool, logs and pid files stay in D; nothing
# is written to /etc. Defaults: port 6817, D = ${TMPDIR:-/tmp}/hpgraph-slurm-<port>.
# Exit codes: 0 done (or already running), 1 failed, 3 status: not running, 4 start:
# Slurm is missing and cannot be installed here.
# Then: export SLURM_CONF=D/slurm.conf (start prints the line) and use sbatch/srun.
# stop cancels the cluster's jobs, stops both daemons (SIGTERM, SIGKILL after 10 s) and
# removes what start wrote to D.
set -euo pipefail

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

cmd=${1:-}
[ -n "$cmd" ] || usage
shift
port=6817
dir=
install=yes
while [ $# -gt 0 ]; do
    case $1 in
        --port) port=${2:?--port needs a value}; shift 2 ;;
        --dir) dir=${2:?--dir needs a value}; shift 2 ;;
        --no-install) install=no; shift ;;
        -h|--help) usage ;;
        *) echo "slurm.sh: unknown option $1" >&2; usage ;;
    esac
done
case $port in ''|*[!0-9]*) echo "slurm.sh: bad port '$port'" >&2; exit 2 ;; esac
dir=${dir:-${TMPDIR:-/tmp}/hpgraph-slurm-$port}
export SLURM_CONF=$dir/slurm.conf
PATH=$PATH:/usr/sbin:/sbin  # the daemons live in sbin, often not on a user's PATH

running_pid() {  # the pid from D/<name>.pid, if that process is alive
    local file=$dir/$1.pid pid
    [ -f "$file" ] || return 1
    pid=$(cat "$file")
    [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

node_state() {  # the node's state as sinfo reports it (idle, mixed, down*, ...)
    timeout 10 sinfo -h -N -n localhost -o %T 2>/dev/null | head -1 || true
}

cannot_install() {  # exit code 4: Slurm is missing and could not be installed
    echo "slurm.sh: Slurm is not installed and $1 (apt-get install slurm-wlm)" >&2
    exit 4
}

install_slurm() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && return 0
    [ "$install" = yes ] || cannot_install "--no-install was given"
    command -v apt-get >/dev/null || cannot_install "there is no apt-get"
    local sudo=
    if [ "$(id -u)" -ne 0 ]; then
        sudo -n true 2>/dev/null || cannot_install "sudo needs a password"
        sudo="sudo -n"
    fi
    echo "slurm.sh: installing slurm-wlm (apt-get)" >&2
    # the package's own systemd units stay unused: this cluster runs its own daemons
    $sudo apt-get update -qq >&2 || cannot_install "apt-get update failed"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurm-wlm >&2 || cannot_install "apt-get install failed"
    command -v slurmctld >/dev/null || cannot_install "slurm-wlm has no slurmctld"
}

write_conf() {
    local hw cpus mem user
    hw=$(slurmd -C | head -1)  # NodeName=... CPUs=2 ... RealMemory=24105
    cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$hw")
    mem=$(sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p' <<<"$hw")
    user=$(id -un)
    mkdir -p "$dir/state" "$dir/spool"
    cat > "$SLURM_CONF" <<EOF
# written by hpgraph scripts/slurm.sh: one node on loopback, a private test cluster
ClusterName=hpgraph
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
MpiDefault=pmi2
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
InactiveLimit=0
KillWait=5
MinJobAge=300
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
    : > "$dir/plugstack.conf"  # no SPANK plugins (not the system's /etc/slurm one)
}

stop_daemon() {  # SIGTERM, SIGKILL after 10 s
    local name=$1 pid
    pid=$(running_pid "$name") || { rm -f "$dir/$name.pid"; return 0; }
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "slurm.sh: $name (pid $pid) ignored SIGTERM for 10 s; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$dir/$name.pid"
    echo "$name stopped (pid $pid)"
}

cancel_jobs() {  # end this cluster's jobs, so that no job step outlives the daemons
    running_pid slurmctld >/dev/null || return 0
    local jobs
    jobs=$(timeout 10 squeue -h -o %i 2>/dev/null || true)
    [ -n "$jobs" ] || return 0
    # shellcheck disable=SC2086  # one argument per job id
    timeout 10 scancel $jobs 2>/dev/null || true
    for _ in $(seq 100); do  # up to 10 s (KillWait=5)
        [ -z "$(timeout 10 squeue -h -o %i 2>/dev/null || true)" ] && return 0
        sleep 0.1
    done
    echo "slurm.sh: jobs still listed after scancel: $jobs" >&2
}

clean_dir() {  # what start wrote into D, and D itself when nothing else is there
    rm -rf "$dir/state" "$dir/spool"
    rm -f "$SLURM_CONF" "$dir/plugstack.conf" "$dir"/slurmctld.* "$dir"/slurmd.*
    rmdir "$dir" 2>/dev/null || true
}

fail_start() {
    echo "slurm.sh: $1; logs in $dir:" >&2
    tail -n 15 "$dir"/slurmctld.log "$dir"/slurmd.log >&2 2>/dev/null || true
    stop_daemon slurmd >&2
    stop_daemon slurmctld >&2
    exit 1
}

case $cmd in
start)
    if running_pid slurmctld >/dev/null && running_pid slurmd >/dev/null \
        && [ "$(node_state)" = idle ]; then
        echo "Slurm already running on 127.0.0.1:$port (dir $dir)"
        echo "export SLURM_CONF=$SLURM_CONF"
        exit 0
    fi
    install_slurm
    stop_daemon slurmd >/dev/null  # a half-started cluster from an earlier try
    stop_daemon slurmctld >/dev/null
    if timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; then
        echo "slurm.sh: port $port is taken (another slurmctld?): use --port" >&2
        exit 1
    fi
    clean_dir
    write_conf
    # -i: ignore saved state (none), -c: clear it; both daemons fork into the background
    slurmctld -i -c || fail_start "slurmctld did not start"
    slurmd -N localhost || fail_start "slurmd did not start"
    for i in $(seq 300); do  # up to 30 s
        state=$(node_state)
        if [ "$state" = idle ]; then
            echo "Slurm running on 127.0.0.1:$port (node localhost, dir $dir)"
            echo "export SLURM_CONF=$SLURM_CONF"
            exit 0
        fi
        if [ "$i" -gt 20 ]; then  # the daemons write their pid files once forked
            running_pid slurmctld >/dev/null || fail_start "slurmctld exited"
            running_pid slurmd >/dev/null || fail_start "slurmd exited"
        fi
        sleep 0.1
    done
    fail_start "node not idle after 30 s (state '${state:-none}')"
    ;;
stop)
    cancel_jobs
    stop_daemon slurmd
    stop_daemon slurmctld
    clean_dir
    echo "Slurm on 127.0.0.1:$port stopped"
    ;;
status)
    state=
    [ -f "$SLURM_CONF" ] && state=$(node_state)
    if running_pid slurmctld >/dev/null && [ -n "$state" ]; then
        echo "Slurm running on 127.0.0.1:$port (node localhost: $state)"
        echo "export SLURM_CONF=$SLURM_CONF"
        exit 0
    fi
    echo "Slurm not running on 127.0.0.1:$port"
    exit 3
    ;;
*)
    usage
    ;;
esac
