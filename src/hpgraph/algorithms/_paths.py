"""The single-source shortest-path core that APSP and betweenness share: Dijkstra with
an indexed binary heap, recording the settling order and the number of shortest paths.

Given a CSR graph with non-negative weights and a source, fills the distances of the
vertices it reaches, ``sigma`` (shortest paths to each; an equal float sum counts as a
tie) and their settling order, which is non-decreasing distance: APSP reads the
distances, Brandes walks the order backwards.
"""

from __future__ import annotations

from numba import njit

from hpgraph.algorithms._peer import heap_pop, heap_push, heap_sift_up
from hpgraph.config import NUMBA_FLAGS

__all__ = ["dijkstra_settle"]


@njit(**NUMBA_FLAGS)
def dijkstra_settle(indptr, indices, weights, s, dist, sigma, order, heap, pos):
    """Dijkstra from ``s``; returns ``cnt``, the vertices settled, in ``order[:cnt]``.

    On entry ``dist`` is inf and ``pos`` -1 for every vertex. On return the settled
    vertices hold their distance and ``pos`` -2 (the caller resets what it reuses:
    ``order[:cnt]`` lists them); ``sigma[x]`` counts the shortest paths to each settled
    x (1 at ``s``), summed over the predecessors whose distance plus the edge weight
    equals x's exactly. Scratch: ``heap`` and ``pos`` (n entries each)."""
    dist[s] = 0.0
    sigma[s] = 1.0
    size = heap_push(heap, pos, dist, 0, s)
    cnt = 0
    while size > 0:
        u, size = heap_pop(heap, pos, dist, size)
        order[cnt] = u
        cnt += 1
        du = dist[u]
        su = sigma[u]
        for k in range(indptr[u], indptr[u + 1]):
            x = indices[k]
            if pos[x] == -2:
                continue
            nd = du + weights[k]
            dx = dist[x]
            if nd < dx:
                dist[x] = nd
                sigma[x] = su
                if pos[x] < 0:
                    size = heap_push(heap, pos, dist, size, x)
                else:
                    heap_sift_up(heap, pos, dist, pos[x])
            elif nd == dx:
                sigma[x] += su
    return cnt
