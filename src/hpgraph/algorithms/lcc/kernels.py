"""The counting kernels of LCC, shared by the whole-graph and the partitioned runs: given
forward rows (each vertex's neighbours ranked above it, the row ordered by rank), list the
triangles whose lowest-ranked corner is one of the given rows and credit all three corners;
and the coefficient of each vertex from its counts. Only arrays and scalars come in, so
the same compiled code serves every runtime (see the package docstring for the method)."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = ["count_triangles", "count_links", "coefficients", "connected_triples"]


@njit(**NUMBA_FLAGS)
def count_triangles(fptr, fix, rows, tri, bits):
    """Triangles r < u < w with r in ``rows``: tri[x] += 1 for each of the three. Rows
    are ordered by rank, so a row's last entry (ranked above the others) is not probed."""
    one = np.uint64(1)
    for r in rows:
        a0, a1 = fptr[r], fptr[r + 1]
        if a1 - a0 < 2:
            continue
        for i in range(a0, a1):
            w = fix[i]
            bits[w >> 6] |= one << np.uint64(w & 63)
        t_r = 0
        for i in range(a0, a1 - 1):
            u = fix[i]
            t_u = 0
            for q in range(fptr[u], fptr[u + 1]):
                w = fix[q]
                if bits[w >> 6] & (one << np.uint64(w & 63)):
                    tri[w] += 1
                    t_u += 1
            tri[u] += t_u
            t_r += t_u
        tri[r] += t_r
        for i in range(a0, a1):
            bits[fix[i] >> 6] = 0


@njit(**NUMBA_FLAGS)
def count_links(fptr, fix, fdir, rows, counts, mark):
    """Directed graphs: counts[x, 0] as in ``count_triangles``; counts[x, 1] adds, per
    triangle through x, the directions (1 or 2) of its edge opposite x."""
    for r in rows:
        a0, a1 = fptr[r], fptr[r + 1]
        if a1 - a0 < 2:
            continue
        for i in range(a0, a1):
            mark[fix[i]] = fdir[i]
        t_r = 0
        l_r = 0
        for i in range(a0, a1 - 1):
            u = fix[i]
            d_ru = fdir[i]
            t_u = 0
            l_u = 0
            for q in range(fptr[u], fptr[u + 1]):
                w = fix[q]
                d_rw = mark[w]
                if d_rw:
                    counts[w, 0] += 1
                    counts[w, 1] += d_ru
                    t_u += 1
                    l_u += d_rw
                    l_r += fdir[q]
            counts[u, 0] += t_u
            counts[u, 1] += l_u
            t_r += t_u
        counts[r, 0] += t_r
        counts[r, 1] += l_r
        for i in range(a0, a1):
            mark[fix[i]] = 0


def coefficients(tri, links, degree) -> np.ndarray:
    """LCC per vertex: ``links / (d (d - 1))`` (``2 * tri`` for the links of an
    undirected graph), 0 where ``d <= 1``. Element by element, so a rank computing its
    own vertices' values gets the whole graph's bits."""
    if links is None:
        links = 2 * tri
    pairs = (degree * (degree - 1)).astype(np.float64)
    coef = np.zeros(degree.shape[0], dtype=np.float64)
    np.divide(links, pairs, out=coef, where=degree > 1)
    return coef


def connected_triples(degree) -> int:
    """Paths of two edges centred on each vertex, summed: ``d (d - 1) / 2``."""
    return int((degree * (degree - 1) // 2).sum())
