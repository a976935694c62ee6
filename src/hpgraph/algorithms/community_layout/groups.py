"""The community graph and its groups (step 2 of the package docstring).

Given the simple view and a community per vertex, :func:`_cross_keys` returns the
community pairs of the edges between communities; :func:`_attach` and :func:`_best_links`
hang every community under its most-connected higher-ranked neighbour, and
:func:`_topological` orders the resulting forest, parents first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__: list[str] = []


@njit(**NUMBA_FLAGS)
def _cross_keys(indptr, indices, cid, ncomm):
    """``min * ncomm + max`` of the two communities of every simple-view edge u < v whose
    ends lie in different communities."""
    n = indptr.shape[0] - 1
    cnt = 0
    for u in range(n):
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if u < v and cid[u] != cid[v]:
                cnt += 1
    keys = np.empty(cnt, np.int64)
    cnt = 0
    for u in range(n):
        cu = cid[u]
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            cv = cid[v]
            if u < v and cu != cv:
                keys[cnt] = min(cu, cv) * ncomm + max(cu, cv)
                cnt += 1
    return keys


@njit(**NUMBA_FLAGS)
def _attach(ea, eb, ew, rank, by_rank, ntop):
    """(parent, root) of every community: a top community (rank < ntop) is a root;
    another one's parent is its heaviest edge's other end among the higher-ranked
    communities (ties: the higher ranked), or none (-1: an orphan root)."""
    c = rank.shape[0]
    best_w = np.zeros(c, np.int64)
    best = np.full(c, -1, np.int64)
    for i in range(ea.shape[0]):
        a, b, w = ea[i], eb[i], ew[i]
        lo, hi = (a, b) if rank[a] > rank[b] else (b, a)  # lo: the lower ranked end
        if rank[lo] < ntop:
            continue
        if w > best_w[lo] or (w == best_w[lo] and rank[hi] < rank[best[lo]]):
            best_w[lo] = w
            best[lo] = hi
    root = np.empty(c, np.int64)
    for r in range(c):  # higher ranks first: a parent's root is known before its children
        x = by_rank[r]
        root[x] = x if best[x] < 0 else root[best[x]]
    return best, root


@njit(**NUMBA_FLAGS)
def _best_links(ta, eb, ew, rank, croot):
    """For (tree ta, community eb, weight) sums sorted by ta: the heaviest link of each
    tree to a community of a higher-ranked tree (ties: the higher-ranked community), as
    (tree roots, their new parents)."""
    out_t = np.empty(ta.shape[0], np.int64)
    out_b = np.empty(ta.shape[0], np.int64)
    cnt = 0
    i = 0
    while i < ta.shape[0]:
        t = ta[i]
        best = -1
        bw = 0.0
        while i < ta.shape[0] and ta[i] == t:
            b = eb[i]
            if rank[croot[b]] < rank[t] and (
                ew[i] > bw or (ew[i] == bw and best >= 0 and rank[b] < rank[best])
            ):
                best = b
                bw = ew[i]
            i += 1
        if best >= 0:
            out_t[cnt] = t
            out_b[cnt] = best
            cnt += 1
    return out_t[:cnt], out_b[:cnt]


@njit(**NUMBA_FLAGS)
def _topological(parent, by_rank):
    """Breadth-first order of a forest: the roots in ``by_rank`` order, then their
    children (each parent's in ``by_rank`` order), level by level."""
    c = parent.shape[0]
    start = np.zeros(c + 1, np.int64)
    for x in range(c):
        if parent[x] >= 0:
            start[parent[x] + 1] += 1
    for x in range(c):
        start[x + 1] += start[x]
    fill = start[:-1].copy()
    kids = np.empty(start[c], np.int64)
    order = np.empty(c, np.int64)
    head = 0
    for r in range(c):
        x = by_rank[r]
        if parent[x] >= 0:
            kids[fill[parent[x]]] = x
            fill[parent[x]] += 1
        else:
            order[head] = x
            head += 1
    for i in range(c):
        x = order[i]
        for j in range(start[x], start[x + 1]):
            order[head] = kids[j]
            head += 1
    return order


def _symmetric_csr(a, b, w, kn):
    """CSR (rows sorted by source, stable) of the pairs a-b in both directions."""
    src = np.concatenate([a, b])
    dst = np.concatenate([b, a])
    ww = np.concatenate([w, w]).astype(np.float64)
    o = np.argsort(src, kind="stable")
    indptr = np.zeros(kn + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=kn), out=indptr[1:])
    return indptr, dst[o].astype(np.int64), ww[o]
