"""LCC's counts on a partitioned graph: each MPI rank holds only its own rows (a
:class:`~hpgraph.graph.part.PartGraph`) and lists the triangles whose lowest-ranked corner
it owns, with the whole graph's kernels (:mod:`.kernels`) on a local numbering.

Given a part, returns on every rank the triangles and LCC of every vertex and the
connected triples, equal to the whole-graph run (integers, and ratios of the same
integers). Variant: one-dimensional distributed triangle counting with ghost rows, as
PATRIC does (Arifuzzaman, Khan and Marathe, CIKM 2013) but with each ghost row fetched
once on request instead of stored as an overlapping partition. A peer-level program
(``run_bsp``, one peer per rank), five supersteps:

0. A rank's **locals** are its own vertices and its **ghosts**: the other ranks'
   vertices adjacent to its own (in either direction). It asks each ghost's owner for
   the ghost's simple degree (the order ``(degree, id)`` decides which end of an edge
   keeps it, as on the whole graph).
1. Owners answer with the degrees.
2. The rank numbers its locals in rank order (so rows come out ascending, and the rows
   most probed, the hubs', sit together at the top as in the whole graph's view:
   counting ran twice as fast as with own vertices first), builds its own forward rows
   ``N+(v)`` (neighbours ranked above ``v``, merged from own out- and in-rows) and asks
   each owner for the forward rows of the ghosts that some own row points to: a
   triangle ``v < u < w`` found at own ``v`` needs ``N+(u)``.
3. Owners answer with those rows (global ids, and directions on directed graphs).
4. The rank keeps of each ghost row the locals only (a vertex neither own nor a ghost is
   in no own ``N+(v)``, so no probe can hit it), lists the triangles of its own rows into
   per-local counts (``count_triangles``/``count_links``) and sends each ghost's counts
   to its owner, in the order the owner was asked in superstep 0.
5. Owners add them; every rank gets every rank's counts (``run_bsp`` gathers them).

Bytes per rank (``o`` own vertices, ``g`` ghosts, ``l = o + g`` locals, ``f`` forward
entries of own rows, ``h`` kept entries of the fetched ghost rows, int32 ids below 2^31
vertices; directed graphs add 1 per forward entry, the pair's directions): simple
degrees 8 per own vertex; ghost ids 4 per ghost; id, number and rank order of each local
4 + 4 + 8; own forward rows 8 per own vertex + 4 per entry, built in a buffer of 4 per
own simple neighbour (8 directed) then copied out; ghost rows 8 per ghost + 4 per kept
entry; the rows of every local in rank order, 8 per local + 4 per entry (``f + h``),
made from those two (both held while it is); counts 8 per local (16 directed) and the
bitmap l / 8 (l directed). At the owners, the ids each other rank asked for, 4 per
ghost. Moved: ids 4 per ghost and degrees 8 back; ids 4 per row asked for and the rows,
8 per row + 4 per entry, back; counts 8 per ghost (16 directed). Then the gathered
result, 16 per vertex of the whole graph (triangles and LCC), as every kernel on parts
gathers its values.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms._owners import joined, to_owners
from hpgraph.algorithms.lcc.kernels import (
    coefficients,
    connected_triples,
    count_links,
    count_triangles,
)
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.bsp import run_bsp
from hpgraph.engine.contract import resolve_for_part
from hpgraph.graph.views import _next, _simple_degrees, _union_step, rows_in_order

__all__ = ["count_part"]


# ------------------------------------------------------------------ kernels
@njit(**NUMBA_FLAGS)
def _own_forward(ipa, ixa, ipb, ixb, lo, hi, ghosts, num, kptr, keys, need, with_dir):
    """Own rows of the forward lists: the local numbers above the row's (``num``, by
    slot: own vertex ``v`` is slot ``v - lo``, ghost ``i`` slot ``own + i``) of its
    neighbours, each row ascending, as ``2 x + directions - 1`` when ``with_dir`` (else
    ``x``), packed into ``keys`` (room for every simple neighbour), row v from
    ``kptr[v - lo]``; ``need`` marks the ghosts listed. Returns the entries written."""
    big = ipa.shape[0]
    own = hi - lo
    k = 0
    for v in range(lo, hi):
        ea, eb = ipa[v + 1], ipb[v + 1]
        pa = _next(ixa, ipa[v], ea, v, -1)
        pb = _next(ixb, ipb[v], eb, v, -1)
        r = num[v - lo]
        kptr[v - lo] = k
        while pa < ea or pb < eb:
            u, m, pa, pb = _union_step(ixa, pa, ea, ixb, pb, eb, v, big)
            slot = u - lo if lo <= u < hi else own + np.searchsorted(ghosts, u)
            x = num[slot]
            if x > r:
                keys[k] = 2 * x + m - 1 if with_dir else x
                k += 1
                if slot >= own:
                    need[slot - own] = True
        if k - kptr[v - lo] > 1:
            keys[kptr[v - lo] : k].sort()
    kptr[own] = k
    return k


@njit(**NUMBA_FLAGS)
def _slot(lo, hi, ghosts, w):
    """Slot of global vertex ``w``: own, a ghost, or -1 (neither)."""
    if lo <= w < hi:
        return w - lo
    i = np.searchsorted(ghosts, w)
    if i < ghosts.shape[0] and ghosts[i] == w:
        return hi - lo + i
    return -1


@njit(**NUMBA_FLAGS)
def _ghost_rows(lo, hi, ghosts, num, wanted, lens, ents, dirs):
    """(indptr, local numbers, directions) of the ghosts' forward rows, by ghost: row
    ``wanted[j]`` is the locals of received row j (``lens[j]`` entries of ``ents``, in
    order), the other rows empty. ``dirs`` empty: no directions."""
    g = ghosts.shape[0]
    keep_dir = dirs.shape[0] > 0
    gptr = np.zeros(g + 1, dtype=np.int64)
    k = 0
    for j in range(wanted.shape[0]):
        c = 0
        for t in range(k, k + lens[j]):
            if _slot(lo, hi, ghosts, ents[t]) >= 0:
                c += 1
        gptr[wanted[j] + 1] = c
        k += lens[j]
    for i in range(g):
        gptr[i + 1] += gptr[i]
    gix = np.empty(gptr[g], dtype=num.dtype)
    gdir = np.empty(gptr[g] if keep_dir else 0, dtype=np.uint8)
    p = 0
    for t in range(ents.shape[0]):
        slot = _slot(lo, hi, ghosts, ents[t])
        if slot >= 0:
            gix[p] = num[slot]
            if keep_dir:
                gdir[p] = dirs[t]
            p += 1
    return gptr, gix, gdir


# ------------------------------------------------------------------ the program
def _ghosts(part, ipb, ixb):
    """Sorted ids of the other ranks' vertices adjacent to the own rows."""
    lo, hi = part.lo, part.hi
    adj = part.own_indices
    if part.directed:
        adj = np.concatenate([adj, ixb[ipb[lo] : ipb[hi]]])
    return np.unique(adj[(adj < lo) | (adj >= hi)])


def _forward_rows(part, ipb, ixb, ghosts, num, degree, links):
    """(indptr by slot, local numbers, directions or empty, ghosts listed) of the own
    forward rows, each ascending (so by rank)."""
    kptr = np.empty(part.hi - part.lo + 1, dtype=np.int64)
    need = np.zeros(ghosts.shape[0], dtype=np.bool_)
    keys = np.empty(int(degree.sum()), dtype=np.int64 if links else num.dtype)
    used = _own_forward(part.indptr, part.indices, ipb, ixb, part.lo, part.hi, ghosts, num,
                        kptr, keys, need, links)  # fmt: skip
    keys = keys[:used].copy()
    if not links:
        return kptr, keys, np.empty(0, dtype=np.uint8), need
    return kptr, (keys >> 1).astype(num.dtype), ((keys & 1) + 1).astype(np.uint8), need


def _program(peer, part, links, want_coef, ipb, ixb):
    """The five supersteps of the module docstring. Returns this rank's (triangles, LCC
    or None, connected triples)."""
    lo, hi = part.lo, part.hi
    own = hi - lo
    idt = part.indices.dtype
    degree = np.empty(own, dtype=np.int64)
    _simple_degrees(part.indptr, part.indices, ipb, ixb, False, lo, hi, degree)
    ghosts = _ghosts(part, ipb, ixb)
    at = np.searchsorted(ghosts, part.rank_offsets)  # each owner's block of ghosts
    to_owners(peer, ghosts, at)
    peer.sync()  # 0 -> 1: the owners answer with the degrees
    asked = dict(peer.messages())
    for q, ids in asked.items():
        peer.send(q, degree[ids - lo])
    peer.sync()  # 1 -> 2: the forward rows, and the ghost rows they need
    ids = np.concatenate([np.arange(lo, hi, dtype=idt), ghosts])  # slot -> global id
    order = np.lexsort((ids, np.concatenate([degree, joined(peer, degree[:0])])))
    num = np.empty(ids.shape[0], dtype=idt)  # slot -> local number, in rank order
    num[order] = np.arange(ids.shape[0], dtype=idt)
    kptr, kfix, kdir, need = _forward_rows(part, ipb, ixb, ghosts, num, degree, links)
    wanted = np.flatnonzero(need)
    to_owners(peer, ghosts[wanted], np.searchsorted(wanted, at))
    peer.sync()  # 2 -> 3: the owners answer with the rows asked for, in global ids
    for q, theirs in peer.messages():
        slots = theirs.astype(np.int64) - lo
        ptr, ent = rows_in_order(kptr[:-1], kptr[1:], kfix, slots)
        peer.send(q, np.diff(ptr))
        peer.send(q, ids[order[ent]])
        peer.send(q, rows_in_order(kptr[:-1], kptr[1:], kdir, slots)[1] if links else kdir)
    peer.sync()  # 3 -> 4: count, and send the ghosts' counts to their owners
    gptr, gix, gdir = _ghost_rows(
        lo, hi, ghosts, num, wanted,
        joined(peer, kptr[:0], 0, 3), joined(peer, ids[:0], 1, 3), joined(peer, kdir[:0], 2, 3),
    )  # fmt: skip
    del ids, need, wanted
    sptr = np.concatenate([kptr, kptr[-1] + gptr[1:]])  # every local's row, by slot
    fptr, fix = rows_in_order(sptr[:-1], sptr[1:], np.concatenate([kfix, gix]), order)
    fdir = kdir
    if links:
        fdir = rows_in_order(sptr[:-1], sptr[1:], np.concatenate([kdir, gdir]), order)[1]
    del sptr, kptr, kfix, kdir, gptr, gix, gdir, order
    local = fptr.shape[0] - 1
    rows = np.sort(num[:own]).astype(np.int64)
    counts = np.zeros((local, 2 if links else 1), dtype=np.int64)
    if links:
        count_links(fptr, fix, fdir, rows, counts, np.zeros(local, dtype=np.uint8))
    else:
        count_triangles(fptr, fix, rows, counts.reshape(-1), np.zeros(local // 64 + 1, np.uint64))
    to_owners(peer, counts[num[own:]], at)
    peer.sync()  # 4 -> 5: add the counts of own vertices that other ranks found
    mine = counts[num[:own]]
    for q, theirs in peer.messages():
        mine[asked[q] - lo] += theirs
    tri = mine[:, 0]
    coef = coefficients(tri, mine[:, 1] if links else None, degree) if want_coef else None
    return tri, coef, connected_triples(degree)


def count_part(part, want_coef, threads, runtime):
    """(triangles, LCC or None, connected triples, BSP stats) of the whole graph, from
    this rank's part, on every rank; ``runtime``: the MPI runtime the part was split for."""
    rt, own_rt = resolve_for_part(part, runtime, threads)
    try:
        links = bool(want_coef and part.directed)
        ipb, ixb, _ = part.in_csr()  # an exchange on a directed part, so before the job
        job = run_bsp(_program, args=(part, links, want_coef, ipb, ixb), runtime=rt)
    finally:
        if own_rt:
            rt.close()
    tri = np.concatenate([r[0] for r in job.results])
    coef = np.concatenate([r[1] for r in job.results]) if want_coef else None
    return tri, coef, sum(r[2] for r in job.results), job.stats
