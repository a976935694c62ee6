"""Whether a whole graph fits every rank: checked before a parallel read gathers the
rows on every rank, so a kernel that needs the whole graph stops with a one-line error
instead of being killed for memory.

A rank's budget is the memory it can still take: the node's available memory (Linux
``MemAvailable``) shared by the node's ranks, and no more than its memory cgroup's
headroom (shared by the node's ranks in the same cgroup). ``$HPGRAPH_RANK_MEMORY``
(bytes, or with a K/M/G/T suffix) sets it instead, where the detection is wrong (a
batch system's limit the process cannot see) or to test.
"""

from __future__ import annotations

import os

from hpgraph._procfs import cgroup_headroom, kib_field
from hpgraph.errors import InvalidArgumentError, InvalidGraphError, agreed

__all__ = ["rank_budget", "whole_graph_fits", "parse_bytes"]

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_bytes(text: str) -> int:
    """``"512M"`` -> 536870912 (binary units, an optional ``B`` or ``iB``)."""
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1:] if t[-1:] in _UNITS else ""
    try:
        value = float(t[: len(t) - len(unit)])
    except ValueError:
        value = -1.0
    if value < 0:
        raise InvalidArgumentError(f"HPGRAPH_RANK_MEMORY={text!r}: expected bytes, e.g. 512M")
    return int(value * _UNITS[unit])


def _cgroup_path() -> str:
    try:
        with open("/proc/self/cgroup") as fh:
            return fh.read()
    except OSError:
        return ""


def rank_budget(comm, MPI) -> tuple[int, str]:
    """(bytes this rank can still take, how that was found). Collective."""
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        ranks = node.Get_size()
        groups = node.allgather(_cgroup_path())
    finally:
        node.Free()
    fixed = os.environ.get("HPGRAPH_RANK_MEMORY", "").strip()
    if fixed:
        return parse_bytes(fixed), "HPGRAPH_RANK_MEMORY"
    available = kib_field("/proc/meminfo", "MemAvailable")
    budget, how = None, ""
    if available is not None:
        budget, how = available // ranks, f"the node's available memory over its {ranks} ranks"
    cap = cgroup_headroom()
    if cap is not None:
        sharing = groups.count(_cgroup_path())
        if budget is None or cap // sharing < budget:
            budget = cap // sharing
            how = "its memory cgroup's headroom" + (f" over {sharing} ranks" if sharing > 1 else "")
    return (budget if budget is not None else 1 << 62), how


def _size(b: int) -> str:
    if b >= 1 << 30:
        return f"{b / 2**30:.1f} GiB"
    return f"{b / 2**20:,.0f} MiB" if b >= 1 << 20 else f"{b / 2**10:,.1f} KiB"


def whole_graph_fits(comm, MPI, n, stored, index_bytes, weighted, name) -> None:
    """Raise :class:`InvalidGraphError` on every rank when the whole CSR (``indptr``, the
    ``stored`` targets and weights) is more than some rank can still take."""
    need = 8 * (n + 1) + stored * (index_bytes + (8 if weighted else 0))
    budget, how = rank_budget(comm, MPI)
    budgets = comm.allgather((budget, how))
    low = min(range(len(budgets)), key=lambda r: budgets[r][0])
    if need > budgets[low][0]:
        raise agreed(
            InvalidGraphError(
                f"{name}: the whole graph ({_size(need)}) does not fit on every rank: "
                f"rank {low} can take about {_size(budgets[low][0])} "
                f"({budgets[low][1]}); read it partitioned (each rank its own rows: "
                "load_graph_mpi(..., partitioned=True), or a kernel that runs on parts), "
                "or use fewer ranks per node"
            )
        )
