"""The graph that the ranks of a parallel read assemble from their shares' edges: the
one-process readers' id numbering, computed together (string ids through the
distributed dictionary, :mod:`hpgraph.runtimes.mpi.dictionary`, wide integer ids through
the same sample sort, :mod:`hpgraph.runtimes.mpi.samplesort`; each rank keeps a slice of
the sorted ids), and the CSR, each rank building the rows of its own range (see
:mod:`hpgraph.runtimes.mpi.ingest`)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.graph.build import sort_rows
from hpgraph.graph.csr import index_dtype
from hpgraph.graph.partition import range_cuts
from hpgraph.io.chunk_ids import Combine, chunk_ids
from hpgraph.runtimes.mpi.buffers import RowTypes, allgatherv, alltoallv
from hpgraph.runtimes.mpi.dictionary import gather_names, string_ids
from hpgraph.runtimes.mpi.samplesort import number

__all__ = ["renumber", "gather_ids", "build_rows"]


class _Ranks(Combine):
    """What the ranks of a parallel read combine to number their integer ids together:
    counts and spans reduced, narrow spans' presence bitmaps reduced, wide ids numbered
    by a sample sort (:func:`~hpgraph.runtimes.mpi.samplesort.number`); each rank keeps
    a slice of the sorted ids."""

    def __init__(self, comm, MPI):
        self.comm, self.MPI = comm, MPI

    def count(self, x):
        return self.comm.allreduce(x)

    def low(self, x):
        return self.comm.allreduce(x, op=self.MPI.MIN)

    def high(self, x):
        return self.comm.allreduce(x, op=self.MPI.MAX)

    def present(self, bitmap):
        self.comm.Allreduce(self.MPI.IN_PLACE, bitmap, op=self.MPI.MAX)

    def keep(self, ids):
        r, size, n = self.comm.Get_rank(), self.comm.Get_size(), ids.shape[0]
        return ids[n * r // size : n * (r + 1) // size].copy()

    def number(self, distinct):
        return number(self.comm, self.MPI, distinct)


def renumber(comm, MPI, columns, ints):
    """(src, dst, ids, n): this rank's edges ``columns`` (``[src chunks, dst chunks]``,
    lists of arrow arrays or of integer numpy arrays, emptied: each chunk is freed once
    converted) in the global numbering (the one-process reader's: ids sorted). ``ids``
    is this rank's slice of every vertex's sorted ids (string ids: of the dictionary, an
    arrow array; integer ids: int64; None for ids 0..n-1): the slices in rank order are
    every vertex's ids (:func:`gather_ids`)."""
    src, dst = columns
    columns.clear()
    if ints:
        return chunk_ids(src, dst, ints, _Ranks(comm, MPI))
    return string_ids(comm, MPI, src, dst)


def gather_ids(comm, MPI, ids):
    """Every vertex's ids, from every rank's slice ``ids`` of them (:func:`renumber`'s):
    the names as an object array for string ids (:func:`~hpgraph.runtimes.mpi.
    dictionary.gather_names`), else int64 (``Allgatherv``); None for ids 0..n-1.
    Collective."""
    if ids is None:
        return None
    if isinstance(ids, pa.Array):
        return gather_names(comm, MPI, ids)
    counts = np.array(comm.allgather(ids.shape[0]), dtype=np.int64)
    types = RowTypes(MPI)
    try:
        return allgatherv(comm, types, [ids], counts)[0]
    finally:
        types.free()


#: Edges a rank sends per round of the shuffle: bounds the send and receive buffers
#: (at most 2 half-edges of 12-20 B each per edge, twice) whatever the share's size.
SHUFFLE_ROUND = 1 << 18


def build_rows(comm, MPI, edges, n, directed, gather=True, before_gather=None):
    """The CSR that :meth:`Graph.from_edges` builds from every rank's edges in rank order,
    each rank building the rows of its own range (:func:`~hpgraph.graph.partition.
    range_cuts` of the global row counts, the MPI runtime's partition); the rows are then
    gathered on every rank: ``(indptr, indices, weights)``. Without ``gather``: ``(cuts,
    own indptr, own indices, own weights)``, this rank's rows only (``indptr`` entries
    ``lo .. hi`` of the whole graph's). ``edges``: this rank's ``[src, dst, weights or
    None]``, emptied (the caller keeps no reference, so each is freed once shuffled).

    Every half-edge is sent with its final slot in its row, so the owner writes it in
    place and nothing is sorted but each row by target: ``from_edges`` puts a row's
    forward entries (from the edges in file order, i.e. rank by rank) before its reversed
    ones, so rank r's k-th forward entry of row v goes to ``indptr[v]`` + the forward
    entries of v on ranks before r (an ``Exscan`` of per-row counts) + k, and reversed
    entries after every rank's forward ones. The half-edges travel in rounds of
    :data:`SHUFFLE_ROUND` edges, so a rank holds its edges, its own rows and one round's
    buffers, never its share twice over. ``before_gather(stored, weighted)``: called on
    every rank before the gather (it may raise, on every rank alike)."""
    s, d, w = edges
    edges.clear()
    rank, size = comm.Get_rank(), comm.Get_size()
    idt = index_dtype(n)
    s, d = s.astype(idt, copy=False), d.astype(idt, copy=False)
    has_w = w is not None
    w = w if has_w else np.empty(0, dtype=np.float64)
    indptr, cur_f, cur_r = _slots(comm, MPI, s, d, n, not directed)
    cuts = range_cuts(indptr, size)
    lo, hi = int(cuts[rank]), int(cuts[rank + 1])
    base = int(indptr[lo])
    indices = np.empty(int(indptr[hi]) - base, dtype=idt)
    weights = np.empty(indices.shape[0] if has_w else 0, dtype=np.float64)
    types = RowTypes(MPI)
    try:
        rounds = comm.allreduce(-(-s.shape[0] // SHUFFLE_ROUND), op=MPI.MAX)
        for k in range(rounds):
            a, b = k * SHUFFLE_ROUND, (k + 1) * SHUFFLE_ROUND
            ws = w[a:b] if has_w else w
            sent, slot, tgt, wt = _by_owner(cuts, indptr, cur_f, cur_r, s[a:b], d[a:b], ws, has_w)
            got = alltoallv(comm, types, [slot, tgt] + ([wt] if has_w else []), sent)[0]
            del slot, tgt, wt
            _place(got[0], base, got[1], got[2] if has_w else weights, indices, weights, has_w)
            del got
        del s, d, w, cur_f, cur_r
        own = indptr[lo : hi + 1] - base
        sort_rows(own, indices, weights, 0, hi - lo, has_w)
        if not gather:
            return cuts, indptr[lo : hi + 1].copy(), indices, weights if has_w else None
        if before_gather is not None:
            before_gather(int(indptr[-1]), has_w)
        sizes = indptr[cuts[1:]] - indptr[cuts[:-1]]
        got = allgatherv(comm, types, [indices] + ([weights] if has_w else []), sizes)
    finally:
        types.free()
    return indptr, got[0], got[1] if has_w else None


def _slots(comm, MPI, s, d, n, undirected):
    """(``indptr`` of the whole graph, the slot of this rank's next forward entry of each
    row, of its next reversed entry (undirected; else an empty array)): per-row counts,
    reduced over ranks (``Allreduce``) and scanned over the ranks before this one
    (``Exscan``). Four arrays of n int64 at the most, freed on return but the three."""
    fwd, rev = _row_counts(s, d, n, undirected)
    total = fwd + rev if undirected else fwd.copy()
    comm.Allreduce(MPI.IN_PLACE, total, op=MPI.SUM)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(total, out=indptr[1:])
    if undirected:  # reversed entries start after every rank's forward ones
        total[:] = fwd
        comm.Allreduce(MPI.IN_PLACE, total, op=MPI.SUM)
    for counts in (fwd, rev) if undirected else (fwd,):
        comm.Exscan(MPI.IN_PLACE, counts, op=MPI.SUM)
        if comm.Get_rank() == 0:  # Exscan leaves rank 0's buffer undefined
            counts[:] = 0
        counts += indptr[:-1]
    if undirected:
        rev += total
    return indptr, fwd, rev


@njit(**NUMBA_FLAGS)
def _row_counts(s, d, n, undirected):
    """Forward and (undirected: non-loops) reversed entries of each row from these
    edges."""
    fwd = np.zeros(n, dtype=np.int64)
    rev = np.zeros(n if undirected else 0, dtype=np.int64)
    for i in range(s.shape[0]):
        fwd[s[i]] += 1
        if undirected and s[i] != d[i]:
            rev[d[i]] += 1
    return fwd, rev


@njit(**NUMBA_FLAGS)
def _place(slot, base, targets, w_in, indices, weights, has_w):
    """Write received half-edges into their slots of this rank's rows."""
    for j in range(slot.shape[0]):
        p = slot[j] - base
        indices[p] = targets[j]
        if has_w:
            weights[p] = w_in[j]


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
def _by_owner(cuts, indptr, cur_f, cur_r, s, d, w, has_w):
    """(per-rank counts, slots, targets, weights) of these edges' half-edges (forward,
    and with ``cur_r`` the non-loops reversed) grouped by the rank owning the row, each
    with its slot in the whole CSR (taken from the row's cursor ``cur_f`` or ``cur_r``,
    which advance)."""
    undirected = cur_r.shape[0] > 0
    parts = cuts.shape[0] - 1
    owner, sent, _ = owner_ranks(cuts, s, d, False)
    if undirected:
        back, sent_r, _ = owner_ranks(cuts, d, s, True)
        sent += sent_r
    else:
        back = owner[:0]
    at = np.zeros(parts, dtype=np.int64)
    for r in range(1, parts):
        at[r] = at[r - 1] + sent[r - 1]
    total = at[-1] + sent[-1]
    slots = np.empty(total, dtype=np.int64)
    targets = np.empty(total, dtype=s.dtype)
    weights = np.empty(total if has_w else 0, dtype=np.float64)
    for i in range(s.shape[0]):
        for reverse in range(2 if undirected else 1):
            r = back[i] if reverse else owner[i]
            if r < 0:
                continue
            row, other = (d[i], s[i]) if reverse else (s[i], d[i])
            cur = cur_r if reverse else cur_f
            k = at[r]
            slots[k] = cur[row]
            cur[row] += 1
            targets[k] = other
            if has_w:
                weights[k] = w[i]
            at[r] = k + 1
    return sent, slots, targets, weights
