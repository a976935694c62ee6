"""Memory figures from Linux /proc and cgroup files: one reader for their ``Name:  1234
kB`` lines (a stage's peak RSS), and the memory a process can still take (the all-pairs
matrix, a whole graph on every MPI rank)."""

from __future__ import annotations

import os

__all__ = ["kib_field", "cgroup_headroom", "available_memory"]


def kib_field(path: str, name: str) -> int | None:
    """Bytes in the ``name:`` line (a count of kB) of the /proc file ``path``, or None
    where the file or the line is missing (not Linux)."""
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith(f"{name}:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _read_int(path: str) -> int | None:
    try:
        with open(path) as fh:
            text = fh.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max": no limit


def _stat_field(path: str, names: tuple[str, ...]) -> int:
    """The first of ``names`` found in a cgroup ``memory.stat`` file (bytes), else 0."""
    try:
        with open(path) as fh:
            found = dict(line.split() for line in fh if line.count(" ") == 1)
    except (OSError, ValueError):
        return 0
    return next((int(found[k]) for k in names if k in found), 0)


def cgroup_headroom() -> int | None:
    """Bytes this process's memory cgroup can still take (its limit less what it uses
    apart from the page cache, which the kernel reclaims first), or None without a
    limit. Reads cgroup v1's memory controller, else v2's."""
    try:
        with open("/proc/self/cgroup") as fh:
            lines = [line.rstrip("\n").split(":", 2) for line in fh]
    except OSError:
        return None
    v1 = [p for _, ctl, p in lines if "memory" in ctl.split(",")]
    v2 = [p for h, ctl, p in lines if h == "0" and ctl == ""]
    if v1:
        base = f"/sys/fs/cgroup/memory{v1[0].rstrip('/')}"
        files = ("memory.limit_in_bytes", "memory.usage_in_bytes", ("total_cache", "cache"))
    elif v2:
        base = f"/sys/fs/cgroup{v2[0].rstrip('/')}"
        files = ("memory.max", "memory.current", ("file",))
    else:
        return None
    limit, used = _read_int(f"{base}/{files[0]}"), _read_int(f"{base}/{files[1]}")
    if limit is None or used is None or limit >= 1 << 60:
        return None
    used -= _stat_field(f"{base}/memory.stat", files[2])
    return max(limit - max(used, 0), 0)


def available_memory() -> int:
    """Bytes of memory this process can take now: Linux MemAvailable (else physical
    memory), no more than its memory cgroup's headroom."""
    found = kib_field("/proc/meminfo", "MemAvailable")
    if found is None:
        found = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    cap = cgroup_headroom()
    return found if cap is None else min(found, cap)
