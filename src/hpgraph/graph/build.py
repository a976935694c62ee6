"""Building CSR arrays from an edge list with few copies (``Graph.from_edges``, the
generators, the in-edges of a directed graph all use it).

Graphs can be large (Graph500 scale 24: 268M edges), so nothing here copies the edge
list: no doubled list for undirected graphs, no sort order, no sorted copies.

1. count degrees (one pass over the edges);
2. scatter every edge into its row (forward pass, then, for undirected graphs, the
   reverse pass; self-loops stored once);
3. sort each row by target, stably, so parallel edges keep the order of the edge list.

Rows are sorted by target and parallel edges keep the order of the edge list (forward
edges before reversed ones). Peak memory is the edge list plus the CSR: for an undirected
unweighted graph with int32 ids, 8 B per edge (src, dst) + 8 B per edge (two stored
int32 targets) = 16 B per input edge, plus 16 B per vertex (indptr and fill positions);
weighted adds 8 B per edge (the edge list's weights) + 16 B per edge (two stored float64
weights).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from hpgraph.config import DEFAULT_THREADS, NUMBA_FLAGS

__all__ = ["build_csr", "sort_rows", "edge_ranges", "on_ranges"]

#: Rows up to this length are sorted by insertion sort (stable, no allocation).
_SMALL_ROW = 32


@njit(**NUMBA_FLAGS)
def _row_counts(src, dst, n, undirected):
    indptr = np.zeros(n + 1, dtype=np.int64)
    for i in range(src.shape[0]):
        u = src[i]
        v = dst[i]
        indptr[u + 1] += 1
        if undirected and u != v:
            indptr[v + 1] += 1
    for v in range(n):
        indptr[v + 1] += indptr[v]
    return indptr


@njit(**NUMBA_FLAGS)
def _scatter(src, dst, w, indptr, indices, w_out, undirected, has_w):
    pos = indptr[:-1].copy()
    for i in range(src.shape[0]):
        u = src[i]
        p = pos[u]
        indices[p] = dst[i]
        if has_w:
            w_out[p] = w[i]
        pos[u] = p + 1
    if undirected:
        for i in range(src.shape[0]):
            u = src[i]
            v = dst[i]
            if u != v:
                p = pos[v]
                indices[p] = u
                if has_w:
                    w_out[p] = w[i]
                pos[v] = p + 1


@njit(**NUMBA_FLAGS)
def sort_rows(indptr, indices, w, lo_row, hi_row, has_w):
    """Stable in-place sort of rows lo_row..hi_row-1 by target (weights follow)."""
    for r in range(lo_row, hi_row):
        lo = indptr[r]
        hi = indptr[r + 1]
        if hi - lo <= 1:
            continue
        if hi - lo <= _SMALL_ROW:
            for k in range(lo + 1, hi):
                key = indices[k]
                wk = w[k] if has_w else 0.0
                j = k - 1
                while j >= lo and indices[j] > key:
                    indices[j + 1] = indices[j]
                    if has_w:
                        w[j + 1] = w[j]
                    j -= 1
                indices[j + 1] = key
                if has_w:
                    w[j + 1] = wk
        elif has_w:
            order = np.argsort(indices[lo:hi], kind="mergesort")
            idx = indices[lo:hi][order]
            ww = w[lo:hi][order]
            indices[lo:hi] = idx
            w[lo:hi] = ww
        else:
            indices[lo:hi].sort()


def build_csr(src, dst, weights, n, index_type, *, undirected, threads=None):
    """(indptr, indices, weights or None) of the rows ``src`` holding ``dst``; with
    ``undirected`` every non-loop edge is also stored reversed. Ids must already lie in
    0..n-1 (not checked here). Rows are sorted on ``threads`` threads."""
    indptr = _row_counts(src, dst, n, undirected)
    indices = np.empty(int(indptr[-1]), dtype=index_type)
    has_w = weights is not None
    w_in = weights if has_w else np.empty(0, dtype=np.float64)
    w_out = np.empty(indices.shape[0] if has_w else 0, dtype=np.float64)
    _scatter(src, dst, w_in, indptr, indices, w_out, undirected, has_w)
    ranges = edge_ranges(indptr, threads or DEFAULT_THREADS)
    on_ranges(ranges, sort_rows, indptr, indices, w_out, tail=(has_w,))
    return indptr, indices, (w_out if has_w else None)


def edge_ranges(indptr, parts: int) -> list[tuple[int, int]]:
    """At most ``parts`` row ranges ``(lo, hi)`` of about the same number of edges (rows
    counted by ``indptr``), in order, empty ones left out."""
    n = indptr.shape[0] - 1
    parts = max(1, min(parts, n))
    cuts = np.searchsorted(indptr, np.linspace(0, indptr[-1], parts + 1)[1:-1])
    bounds = np.concatenate([[0], np.minimum(cuts, n), [n]]).tolist()
    return [(lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo]


def on_ranges(ranges, fn, *args, tail=()):
    """``fn(*args, lo, hi, *tail)`` for every range of ``ranges``, each on a thread of its
    own (``fn`` a nogil kernel), or in the caller when there is one range."""
    if len(ranges) == 1:
        fn(*args, *ranges[0], *tail)
    elif ranges:
        with ThreadPoolExecutor(len(ranges)) as pool:
            for f in [pool.submit(fn, *args, lo, hi, *tail) for lo, hi in ranges]:
                f.result()
