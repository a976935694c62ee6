#!/bin/sh
# memcap.sh MIB COMMAND [ARGS...]: run COMMAND with at most MIB MiB of memory (RSS and
# page cache; no swap), in a fresh memory cgroup (v1, /sys/fs/cgroup/memory) that is
# removed afterwards. A command that goes over is killed by the kernel's OOM killer
# (exit status 137). Under mpiexec, every rank gets its own cgroup, so MIB is a per-rank
# budget: `mpiexec -n 4 scripts/memcap.sh 512 python job.py`. Needs write access to
# the memory cgroup hierarchy (root in a container); says so and exits 2 otherwise.
set -u
if [ $# -lt 2 ]; then
    echo "usage: memcap.sh MIB COMMAND [ARGS...]" >&2
    exit 2
fi
mib=$1
shift
root=/sys/fs/cgroup/memory
for stale in "$root"/hpgraph-memcap-*; do  # left by a killed run: empty ones go
    rmdir "$stale" 2>/dev/null
done
cg=$root/hpgraph-memcap-$$
if ! mkdir "$cg" 2>/dev/null; then
    echo "memcap.sh: cannot create a memory cgroup under $root (cgroup v1, writable, needed)" >&2
    exit 2
fi
bytes=$((mib * 1024 * 1024))
echo "$bytes" > "$cg/memory.limit_in_bytes"
if [ -f "$cg/memory.memsw.limit_in_bytes" ]; then
    echo "$bytes" > "$cg/memory.memsw.limit_in_bytes"
fi
echo $$ > "$cg/cgroup.procs"
"$@"
status=$?
echo $$ > "$root/cgroup.procs"
rmdir "$cg" 2>/dev/null
exit $status
