"""Partitioned graphs on the MPI runtime: each rank holds a
:class:`~hpgraph.graph.part.PartGraph` (its own rows only), the runtime's partition of
it, and the in-rows a dense superstep pulls along, built by one exchange.

- :func:`split_graph`: this rank's part of a whole graph every rank holds (generated or
  loaded whole), after which the whole graph can be dropped;
- :func:`part_of_rows`: the part from rows a parallel read built
  (:func:`hpgraph.runtimes.mpi.assemble.build_rows`), never whole on any rank;
- :func:`part_partition`: the runtime's parts (``threads`` per rank) of a part's rows;
- :func:`exchange_in_rows`: the own vertices' in-rows of a directed part: every rank
  sends each of its out-edges ``u -> t`` to ``t``'s owner (one ``Alltoallv``), in row
  order, so the in-rows come out as the whole graph's ``in_csr`` rows, bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.build import build_csr
from hpgraph.graph.csr import count_self_loops
from hpgraph.graph.part import PartGraph, _in_window
from hpgraph.graph.partition import Partition, own_cuts
from hpgraph.runtimes.mpi.assemble import owner_ranks
from hpgraph.runtimes.mpi.buffers import RowTypes, alltoallv
from hpgraph.runtimes.mpi.comm import load_mpi

__all__ = [
    "split_graph",
    "part_of_rows",
    "part_partition",
    "exchange_in_rows",
    "highest_degree_vertex",
]


def split_graph(graph, comm=None) -> PartGraph:
    """This rank's part of ``graph`` (which every rank of ``comm`` holds whole), split
    into ``comm.Get_size()`` ranges balanced by ``8 * vertices + edges``; in-rows are cut
    from the whole graph too (no exchange)."""
    comm = load_mpi().COMM_WORLD if comm is None else comm
    return PartGraph.from_graph(graph, comm.Get_size(), comm.Get_rank(), comm)


def part_of_rows(comm, n, cuts, indptr, indices, weights, *, directed, own_ids, name=""):
    """The part of this rank from its own rows: ``indptr`` (the whole graph's offsets for
    rows ``cuts[rank] .. cuts[rank + 1]``, inclusive), ``indices`` and ``weights`` of
    those rows, ``own_ids`` the ids of its own vertices (a
    :class:`~hpgraph.graph.part.OwnIds`, or None for ids 0..n-1); in-rows come from
    :func:`exchange_in_rows` when first needed."""
    MPI = load_mpi()
    stored = int(comm.allreduce(int(indices.shape[0])))
    edges = stored
    if not directed:
        lo = int(cuts[comm.Get_rank()])
        loops = int(count_self_loops(indptr, indices, lo))
        loops = int(comm.allreduce(loops, op=MPI.SUM))
        edges = (stored - loops) // 2 + loops
    return PartGraph(
        n,
        cuts,
        comm.Get_rank(),
        indptr,
        indices,
        weights,
        directed=directed,
        stored_edges=stored,
        edges=edges,
        own_ids=own_ids,
        name=name,
        in_builder=lambda part: exchange_in_rows(comm, part),
        comm=comm,
    )


def part_partition(rt, part: PartGraph) -> Partition:
    """The runtime's partition of a part: each rank's rows in ``rt.threads`` ranges
    balanced by ``8 * vertices + edges`` (its own ``indptr``), every rank's cuts
    gathered."""
    if part.rank_offsets.shape[0] != rt.size + 1 or part.rank != rt.rank:
        raise InvalidArgumentError(
            f"this part was split for {part.rank_offsets.shape[0] - 1} ranks (rank "
            f"{part.rank}); the runtime has {rt.size} (this is rank {rt.rank})"
        )

    def build():
        own = own_cuts(part.own_indptr, part.lo, rt.threads)  # as nested_cuts does
        cuts = np.concatenate(rt.comm.allgather(own[:-1]) + [[part.n]]).astype(np.int64)
        return Partition(cuts)

    return part.derived(("partition", rt.threads), build)


def exchange_in_rows(comm, part: PartGraph):
    """Windows over the in-rows of this rank's vertices (rows sorted by source, parallel
    edges in out-row order: the whole graph's ``in_csr`` rows)."""
    MPI = load_mpi()
    cuts = part.rank_offsets
    w = part.own_weights
    has_w = w is not None
    sent, rows, sources, weights = _by_target_owner(
        cuts, part.own_indptr, part.own_indices, w if has_w else np.empty(0), part.lo, has_w
    )
    types = RowTypes(MPI)
    try:
        arrays = [rows, sources] + ([weights] if has_w else [])
        got, _ = alltoallv(comm, types, arrays, sent)
    finally:
        types.free()
    del rows, sources, weights
    idt = part.own_indices.dtype
    lo, hi = part.lo, part.hi
    local_rows = got[0] - np.asarray(lo, dtype=idt)
    indptr, indices, in_w = build_csr(
        local_rows, got[1], got[2] if has_w else None, hi - lo, idt, undirected=False, threads=1
    )
    del local_rows, got
    start = comm.exscan(int(indices.shape[0]), op=MPI.SUM)  # None on rank 0
    indptr += int(start or 0)  # the whole in-CSR's offsets
    return _in_window(part, indptr, indices, in_w)


def highest_degree_vertex(part: PartGraph, comm=None) -> tuple[int, int]:
    """(vertex, out-degree) of the highest out-degree over every rank's rows, the
    smallest id on ties (``np.argmax`` of the whole graph's degrees)."""
    comm = load_mpi().COMM_WORLD if comm is None else comm
    deg = np.diff(part.own_indptr)
    mine = (-int(deg.max()), part.lo + int(np.argmax(deg))) if deg.shape[0] else (1, part.n)
    best = min(comm.allgather(mine))
    return best[1], -best[0]


@njit(**NUMBA_FLAGS)
def _by_target_owner(cuts, indptr, indices, w, lo, has_w):
    """(per-rank counts, targets, sources, weights) of a part's out-edges grouped by the
    rank owning the target, in row order within a group (a stable counting sort)."""
    m = indices.shape[0]
    owner, sent, at = owner_ranks(cuts, indices, indices, False)
    rows = np.empty(m, dtype=indices.dtype)
    sources = np.empty(m, dtype=indices.dtype)
    weights = np.empty(m if has_w else 0, dtype=np.float64)
    e0 = indptr[0]
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i] - e0, indptr[i + 1] - e0):
            r = owner[k]
            j = at[r]
            rows[j] = indices[k]
            sources[j] = lo + i
            if has_w:
                weights[j] = w[k]
            at[r] = j + 1
    return sent, rows, sources, weights
