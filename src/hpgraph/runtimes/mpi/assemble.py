"""The graph that the ranks of a parallel read assemble from their shares' edges: the
one-process readers' id numbering, computed together, and the CSR, each rank building the
rows of its own range (see :mod:`hpgraph.runtimes.mpi.ingest`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.graph.build import build_csr
from hpgraph.graph.csr import index_dtype
from hpgraph.graph.partition import range_cuts
from hpgraph.io._ids import (
    fits_bitmap,
    ids_from_present,
    ids_from_sorted,
    int64_ids,
    sorted_unique_strings,
    strings_from_sorted,
)
from hpgraph.runtimes.mpi.buffers import RowTypes, allgatherv, alltoallv

__all__ = ["renumber", "build_rows"]


def renumber(comm, MPI, columns, ints):
    """(src, dst, ids, n): this rank's edges ``columns`` (``[src, dst]`` arrow arrays,
    emptied: each is freed once converted) in the global numbering (the one-process
    reader's: ids sorted)."""
    if not ints:
        src, dst = columns
        columns.clear()
        local = sorted_unique_strings([src, dst]) if len(src) else pa.array([], pa.large_string())
        uniq = sorted_unique_strings(comm.allgather(local))
        return strings_from_sorted(src, dst, uniq)
    src = int64_ids(columns[0])
    columns[0] = None
    dst = int64_ids(columns[1])
    columns.clear()
    pa.default_memory_pool().release_unused()
    m = comm.allreduce(src.shape[0])
    big = np.iinfo(np.int64)
    lo = comm.allreduce(int(min(src.min(), dst.min())) if src.shape[0] else big.max, op=MPI.MIN)
    hi = comm.allreduce(int(max(src.max(), dst.max())) if src.shape[0] else big.min, op=MPI.MAX)
    if fits_bitmap(hi - lo + 1, m):
        present = np.zeros(hi - lo + 1, dtype=np.uint8)
        present[src - lo] = 1
        present[dst - lo] = 1
        comm.Allreduce(MPI.IN_PLACE, present, op=MPI.MAX)
        return ids_from_present(src, dst, lo, present.view(np.bool_))
    local = np.unique(np.concatenate([src, dst]))
    return ids_from_sorted(src, dst, np.unique(np.concatenate(comm.allgather(local))))


def build_rows(comm, MPI, edges, n, directed, gather=True):
    """The CSR that :meth:`Graph.from_edges` builds from every rank's edges in rank order,
    each rank building the rows of its own range (:func:`~hpgraph.graph.partition.
    range_cuts` of the global row counts, the MPI runtime's partition): the half-edges
    go to their rows' owners in two ``Alltoallv`` streams, forward edges then reversed
    ones, each in file order, which is the order ``from_edges`` scatters them in; the
    rows are then gathered on every rank: ``(indptr, indices, weights)``. Without
    ``gather``: ``(cuts, own indptr, own indices, own weights)``, this rank's rows only
    (``indptr`` entries ``lo .. hi`` of the whole graph's). ``edges``: this rank's
    ``[src, dst, weights or None]``, emptied (the caller keeps no reference, so each is
    freed once shuffled)."""
    s, d, w = edges
    edges.clear()
    rank, size = comm.Get_rank(), comm.Get_size()
    idt = index_dtype(n)
    s, d = s.astype(idt, copy=False), d.astype(idt, copy=False)
    has_w = w is not None
    w = w if has_w else np.empty(0, dtype=np.float64)
    counts = _row_counts(s, d, n, not directed)
    comm.Allreduce(MPI.IN_PLACE, counts, op=MPI.SUM)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    del counts
    cuts = range_cuts(indptr, size)
    lo, hi = int(cuts[rank]), int(cuts[rank + 1])
    types = RowTypes(MPI)
    try:
        mine = []  # forward edges, then (undirected) the reversed non-loops
        for reverse in (False, True) if not directed else (False,):
            sent, rows, targets, weights = _by_owner(cuts, s, d, w, has_w, reverse)
            arrays = [rows, targets] + ([weights] if has_w else [])
            mine.append(alltoallv(comm, types, arrays, sent)[0])
            del rows, targets, weights
        del s, d, w
        rows = _joined(mine, 0)
        rows -= np.asarray(lo, dtype=idt)
        targets = _joined(mine, 1)
        weights = _joined(mine, 2) if has_w else None
        del mine
        # one thread: the node's cores run its ranks
        _, indices, weights = build_csr(
            rows, targets, weights, hi - lo, idt, undirected=False, threads=1
        )
        del rows, targets
        if not gather:
            return cuts, indptr[lo : hi + 1].copy(), indices, weights
        sizes = indptr[cuts[1:]] - indptr[cuts[:-1]]
        got = allgatherv(comm, types, [indices] + ([weights] if has_w else []), sizes)
    finally:
        types.free()
    return indptr, got[0], got[1] if has_w else None


def _joined(streams, i):
    """Array ``i`` of every stream, concatenated; each stream's copy is dropped at once
    (one array's worth of memory more, not all of them)."""
    out = np.concatenate([st[i] for st in streams])
    for st in streams:
        st[i] = None
    return out


@njit(**NUMBA_FLAGS)
def _row_counts(s, d, n, undirected):
    """Entries of each row from these edges (undirected: non-loops in both rows)."""
    counts = np.zeros(n, dtype=np.int64)
    for i in range(s.shape[0]):
        counts[s[i]] += 1
        if undirected and s[i] != d[i]:
            counts[d[i]] += 1
    return counts


@njit(**NUMBA_FLAGS)
def owner_ranks(cuts, keys, other, skip_equal):
    """(the rank owning each key, -1 where ``skip_equal`` and ``keys[i] == other[i]``;
    keys per rank; each rank's first slot in a grouping by rank): the counting pass of a
    stable counting sort of items by the rank whose range (``cuts``) holds their key."""
    parts = cuts.shape[0] - 1
    owner = np.empty(keys.shape[0], dtype=np.int32)
    sent = np.zeros(parts, dtype=np.int64)
    for i in range(keys.shape[0]):
        x = keys[i]
        if skip_equal and other[i] == x:
            owner[i] = -1
            continue
        r = 0
        while cuts[r + 1] <= x:  # ranks are few: a scan
            r += 1
        owner[i] = r
        sent[r] += 1
    at = np.zeros(parts, dtype=np.int64)
    for r in range(1, parts):
        at[r] = at[r - 1] + sent[r - 1]
    return owner, sent, at


@njit(**NUMBA_FLAGS)
def _by_owner(cuts, s, d, w, has_w, reverse):
    """(per-rank counts, rows, targets, weights) of the edges (``reverse``: the non-loop
    edges reversed) grouped by the rank owning the row, in edge order within a group (a
    stable counting sort; ``cuts``: the ranks' row ranges)."""
    owner, sent, at = owner_ranks(cuts, d if reverse else s, s, reverse)
    total = at[-1] + sent[-1]
    rows = np.empty(total, dtype=s.dtype)
    targets = np.empty(total, dtype=s.dtype)
    weights = np.empty(total if has_w else 0, dtype=np.float64)
    for i in range(s.shape[0]):
        r = owner[i]
        if r < 0:
            continue
        k = at[r]
        rows[k] = d[i] if reverse else s[i]
        targets[k] = s[i] if reverse else d[i]
        if has_w:
            weights[k] = w[i]
        at[r] = k + 1
    return sent, rows, targets, weights
