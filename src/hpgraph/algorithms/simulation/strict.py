"""Strict simulation's ball phase as a peer-level BSP program (``run_bsp``).

Given the data graph, a connected pattern and its dual-simulation result, :func:`_strict`
builds the match graph, lets every peer expand the balls of every P-th centre
(:func:`~hpgraph.algorithms.simulation.balls._balls`) and keeps one match per distinct
pair set (sent to the peer owning its hash), and returns a :class:`StrictSimulationResult`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms.simulation.balls import _balls
from hpgraph.algorithms.simulation.result import StrictSimulationResult
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine import run_bsp

__all__: list[str] = []


def _strict(graph, pat, dual, rt):
    k = pat.k
    masks = dual["mask"]
    meta = {"radius": pat.diameter, "dual_supersteps": dual.meta["supersteps"]}
    meta["supersteps"] = dual.meta["supersteps"]
    empty = np.zeros(0, dtype=np.int64)
    if not dual.matched:  # a ball's relation is inside the global one: nothing to find
        meta.update(balls=0, ball_vertices=0, ball_edges=0, matches_found=0, matches=0)
        return StrictSimulationResult(
            graph, pat, empty, np.zeros(1, np.int64), empty, dual, dual.stats, None, meta
        )
    children = np.zeros(graph.n, dtype=np.int64)  # children in Q of each vertex's matches
    for u in range(k):
        children |= np.where((masks >> u) & 1, pat.masks[2 * u], 0)
    ip, ix, _ = graph.in_csr()
    optr, oidx = _filter_edges(graph.indptr, graph.indices, children, masks)
    iptr, iidx = _filter_edges(ip, ix, masks, children)
    uptr, uval = _up_lists(optr, oidx, iptr, iidx)
    centres = np.flatnonzero(masks).astype(np.int64)
    res = run_bsp(
        _strict_peer,
        args=(centres, pat.diameter, k, pat.masks, masks, optr, oidx, iptr, iidx, uptr, uval),
        runtime=rt,
    )
    cen = np.concatenate([r[0] for r in res.results])
    order = np.argsort(cen, kind="stable")
    ptrs = [r[1] for r in res.results]
    codes_all = np.concatenate([r[2] for r in res.results])
    offsets = np.cumsum([0] + [int(p[-1]) for p in ptrs[:-1]])
    starts = np.concatenate([p[:-1] + o for p, o in zip(ptrs, offsets, strict=True)])
    lengths = np.concatenate([np.diff(p) for p in ptrs])
    centre, ptr, codes = _select(cen, starts, lengths, codes_all, order)
    meta.update(
        balls=int(centres.size),
        ball_vertices=int(sum(r[3] for r in res.results)),
        ball_edges=int(sum(r[4] for r in res.results)),
        matches_found=int(sum(r[5] for r in res.results)),
        matches=int(centre.size),
        ball_supersteps=len(res.stats.supersteps),
    )
    return StrictSimulationResult(graph, pat, centre, ptr, codes, dual, dual.stats, res.stats, meta)


def _select(cen, starts, lengths, codes, sel):
    """Matches ``sel`` (in that order) as (centres, ptr, codes)."""
    lens = lengths[sel]
    ptr = np.zeros(sel.size + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    # position of every selected code: its match's start + its rank inside the match
    gather = np.repeat(starts[sel] - ptr[:-1], lens) + np.arange(ptr[-1], dtype=np.int64)
    return cen[sel], ptr, codes[gather]


def _strict_peer(peer, centres, radius, k, pat, masks, optr, oidx, iptr, iidx, uptr, uval):
    """One peer: the balls of every P-th centre, then one superstep that sends each match
    to the peer owning its hash, which keeps one match per distinct pair set."""
    mine = centres[peer.pid :: peer.num_peers]
    n = masks.shape[0]
    idt = oidx.dtype
    scratch = (np.full(n, -1, idt), np.empty(n, idt), np.empty(n, idt))
    cen, ptr, codes, ball_total, ball_edges = _balls(
        mine, radius, k, pat, masks, optr, oidx, iptr, iidx, uptr, uval, *scratch
    )
    found = int(cen.size)
    hashes = _hashes(ptr, codes)
    owner = (hashes % np.uint64(peer.num_peers)).astype(np.int64)
    starts, lengths = ptr[:-1], np.diff(ptr)
    for p in range(peer.num_peers):
        sel = np.flatnonzero(owner == p)
        if sel.size:
            c, pp, cc = _select(cen, starts, lengths, codes, sel)
            # one int64 buffer per destination: [count, centres, lengths, codes]
            peer.send(p, np.concatenate([[sel.size], c, np.diff(pp), cc]))
    peer.sync()
    got = sorted(peer.messages(), key=lambda sm: sm[0])
    cens, lens, codes_in = [], [], []
    for _, buf in got:
        m = int(buf[0])
        cens.append(buf[1 : 1 + m])
        lens.append(buf[1 + m : 1 + 2 * m])
        codes_in.append(buf[1 + 2 * m :])
    cen = np.concatenate(cens) if cens else np.zeros(0, np.int64)
    lens = np.concatenate(lens) if lens else np.zeros(0, np.int64)
    codes = np.concatenate(codes_in) if codes_in else np.zeros(0, np.int64)
    ptr = np.zeros(cen.size + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    hashes = _hashes(ptr, codes)
    order = np.lexsort((cen, hashes))  # equal pair sets sit together, smallest centre first
    keep = order[_distinct(order, hashes, ptr, codes)]
    c, pp, cc = _select(cen, ptr[:-1], lens, codes, keep)
    return c, pp, cc, ball_total, ball_edges, found


@njit(**NUMBA_FLAGS)
def _filter_edges(indptr, indices, row_mask, col_mask):
    """The CSR of the edges (v, w) with ``row_mask[v] & col_mask[w] != 0``."""
    n = indptr.shape[0] - 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        c = 0
        rm = row_mask[v]
        if rm != 0:
            for e in range(indptr[v], indptr[v + 1]):
                if rm & col_mask[indices[e]]:
                    c += 1
        ptr[v + 1] = ptr[v] + c
    out = np.empty(ptr[n], dtype=indices.dtype)
    for v in range(n):
        rm = row_mask[v]
        j = ptr[v]
        if rm != 0:
            for e in range(indptr[v], indptr[v + 1]):
                if rm & col_mask[indices[e]]:
                    out[j] = indices[e]
                    j += 1
    return ptr, out


@njit(**NUMBA_FLAGS)
def _up_lists(optr, oidx, iptr, iidx):
    """Each match edge once, at its endpoint of lower (degree, id) rank, as
    ``other * 2 + (0: out-edge, 1: in-edge)``: what a ball's border vertices scan to find
    the edges among them, so that a hub on the border costs its few higher-ranked
    neighbours, not its whole adjacency (the triangle-counting orientation)."""
    n = optr.shape[0] - 1
    deg = np.empty(n, dtype=np.int64)
    for v in range(n):
        deg[v] = optr[v + 1] - optr[v] + iptr[v + 1] - iptr[v]
    ptr = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        c = 0
        for e in range(optr[v], optr[v + 1]):  # a self-loop counts once, as out-edge
            if _higher(oidx[e], v, deg) or oidx[e] == v:
                c += 1
        for e in range(iptr[v], iptr[v + 1]):
            if _higher(iidx[e], v, deg):
                c += 1
        ptr[v + 1] = ptr[v] + c
    val = np.empty(ptr[n], dtype=np.int64)
    for v in range(n):
        j = ptr[v]
        for e in range(optr[v], optr[v + 1]):
            w = oidx[e]
            if _higher(w, v, deg) or w == v:
                val[j] = np.int64(w) * 2
                j += 1
        for e in range(iptr[v], iptr[v + 1]):
            w = iidx[e]
            if _higher(w, v, deg):
                val[j] = np.int64(w) * 2 + 1
                j += 1
    return ptr, val


@njit(**NUMBA_FLAGS, inline="always")
def _higher(w, v, deg):
    return deg[w] > deg[v] or (deg[w] == deg[v] and w > v)


@njit(**NUMBA_FLAGS, inline="always")
def _mix(z):
    # splitmix64's finaliser (all operands uint64: numba turns uint64 op int64 into float)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(**NUMBA_FLAGS)
def _hashes(ptr, codes):
    m = ptr.shape[0] - 1
    out = np.empty(m, dtype=np.uint64)
    for i in range(m):
        h = _mix(np.uint64(ptr[i + 1] - ptr[i]))
        for e in range(ptr[i], ptr[i + 1]):
            h = _mix(h ^ np.uint64(codes[e]))
        out[i] = h
    return out


@njit(**NUMBA_FLAGS)
def _distinct(order, hashes, ptr, codes):
    """Positions in ``order`` of the first match of each distinct pair set (matches with
    equal hashes are adjacent in ``order``; they are compared exactly)."""
    keep = np.zeros(order.shape[0], dtype=np.bool_)
    start = 0
    while start < order.shape[0]:
        end = start + 1
        while end < order.shape[0] and hashes[order[end]] == hashes[order[start]]:
            end += 1
        for a in range(start, end):
            dup = False
            for b in range(start, a):
                if keep[b] and _same(ptr, codes, order[a], order[b]):
                    dup = True
                    break
            keep[a] = not dup
        start = end
    return np.flatnonzero(keep)


@njit(**NUMBA_FLAGS)
def _same(ptr, codes, a, b):
    la = ptr[a + 1] - ptr[a]
    if la != ptr[b + 1] - ptr[b]:
        return False
    for t in range(la):
        if codes[ptr[a] + t] != codes[ptr[b] + t]:
            return False
    return True
