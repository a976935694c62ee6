"""Compiled kernels of the NetworkX backend that hpgraph's own kernels do not cover,
because NetworkX's answer depends on an order hpgraph's parallel kernels do not keep.

Given CSR arrays in NetworkX's neighbour order, returns:

- :func:`bfs_order`: the vertices in the order NetworkX's BFS discovers them (FIFO queue,
  neighbours in ``G._adj`` order; ``generic_bfs_edges`` and
  ``_single_shortest_path_length`` both discover in this order), with each one's
  parent and depth, so ``bfs_edges`` yields NetworkX's edge sequence;
- :func:`dijkstra_order`: the vertices in the order NetworkX's ``_dijkstra_multisource``
  settles them, with their distances. NetworkX pushes ``(distance, counter, vertex)`` on a
  binary heap, so the pop order is fixed by those keys whatever the heap's layout; this
  heap uses the same keys, the same relaxation rule (push only on a first sight or a
  strictly shorter distance), the same ``cutoff`` test and the same "contradictory paths"
  check that makes NetworkX raise on negative weights;
- :func:`pagerank_step`: one power iteration of ``_pagerank_scipy`` over a row range of
  the in-edges (``x @ A`` pulled per vertex, dangling mass and teleport added), and its
  L1 change, for the threads of :func:`pagerank_iterate`;
- :func:`simple_degree`: the neighbours of each vertex other than itself, counted once
  (``len(set(G[v]) - {v})``), on rows sorted by target;
- :func:`upper_entries` and :func:`mirror_values`: the conversion reads an undirected
  edge's attribute dict once (from the row of its smaller end) and copies the value to
  the twin entry (found through a counting sort, O(n + m)), which halves the slowest
  part of converting a weighted graph.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from hpgraph.config import DEFAULT_THREADS, NUMBA_FLAGS
from hpgraph.graph.build import edge_ranges

__all__ = [
    "bfs_order",
    "dijkstra_order",
    "mirror_values",
    "pagerank_iterate",
    "pagerank_step",
    "simple_degree",
    "upper_entries",
]

#: status of :func:`dijkstra_order`: NetworkX's "Contradictory paths found" (negative weights)
CONTRADICTION = 1


@njit(**NUMBA_FLAGS)
def bfs_order(indptr, indices, source, max_depth):
    """(order, parent, depth): discovered vertices in discovery order (source first),
    the parent of each (aligned with ``order``; -1 for the source), and every vertex's
    depth (-1 when not reached). Vertices at depth ``max_depth`` are not expanded."""
    n = indptr.shape[0] - 1
    order = np.empty(n, dtype=np.int64)
    parent = np.empty(n, dtype=np.int64)
    depth = np.full(n, -1, dtype=np.int64)
    order[0] = source
    parent[0] = -1
    depth[source] = 0
    head = 0
    tail = 1
    while head < tail:
        v = order[head]
        head += 1
        d = depth[v]
        if d >= max_depth:
            break  # the queue is in depth order: nothing after v is expanded either
        for k in range(indptr[v], indptr[v + 1]):
            w = indices[k]
            if depth[w] < 0:
                depth[w] = d + 1
                order[tail] = w
                parent[tail] = v
                tail += 1
    return order[:tail], parent[:tail], depth


@njit(**NUMBA_FLAGS)
def _heap_less(hd, hc, a, b):
    return hd[a] < hd[b] or (hd[a] == hd[b] and hc[a] < hc[b])


@njit(**NUMBA_FLAGS, inline="always")
def _heap_swap(hd, hc, hv, a, b):
    hd[a], hd[b] = hd[b], hd[a]
    hc[a], hc[b] = hc[b], hc[a]
    hv[a], hv[b] = hv[b], hv[a]


@njit(**NUMBA_FLAGS, inline="always")
def _heap_push(hd, hc, hv, size, d, c, v):
    """Push (distance d, counter c, vertex v) onto the heap of ``size`` entries and sift
    it up; returns the new size."""
    i = size
    hd[i] = d
    hc[i] = c
    hv[i] = v
    while i > 0:
        p = (i - 1) // 2
        if not _heap_less(hd, hc, i, p):
            break
        _heap_swap(hd, hc, hv, i, p)
        i = p
    return size + 1


@njit(**NUMBA_FLAGS, inline="always")
def _heap_pop(hd, hc, hv, size):
    """(distance, vertex, new size) of the smallest entry, removed: the last entry moves
    to the root and sifts down."""
    d = hd[0]
    v = hv[0]
    size -= 1
    if size > 0:
        hd[0] = hd[size]
        hc[0] = hc[size]
        hv[0] = hv[size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and _heap_less(hd, hc, c + 1, c):
                c += 1
            if not _heap_less(hd, hc, c, i):
                break
            _heap_swap(hd, hc, hv, i, c)
            i = c
    return d, v, size


@njit(**NUMBA_FLAGS)
def dijkstra_order(indptr, indices, weights, source, cutoff, target):
    """(order, dist, status): vertices in settling order and their distances (aligned
    with ``order``). Stops after settling ``target`` (-1: none). ``status`` is
    :data:`CONTRADICTION` where NetworkX raises "Contradictory paths found"."""
    n = indptr.shape[0] - 1
    cap = indices.shape[0] + 1
    hd = np.empty(cap, dtype=np.float64)  # heap: distance, counter, vertex
    hc = np.empty(cap, dtype=np.int64)
    hv = np.empty(cap, dtype=np.int64)
    size = 0
    counter = 0
    seen = np.full(n, np.inf)
    seen_any = np.zeros(n, dtype=np.bool_)
    done = np.zeros(n, dtype=np.bool_)
    dist = np.empty(n, dtype=np.float64)
    order = np.empty(n, dtype=np.int64)
    settled = 0
    seen[source] = 0.0
    seen_any[source] = True
    size = _heap_push(hd, hc, hv, size, 0.0, counter, source)
    counter += 1
    while size > 0:
        d, v, size = _heap_pop(hd, hc, hv, size)
        if done[v]:
            continue
        done[v] = True
        dist[v] = d
        order[settled] = v
        settled += 1
        if v == target:
            break
        for k in range(indptr[v], indptr[v + 1]):
            u = indices[k]
            vu = d + weights[k]
            if vu > cutoff:
                continue
            if done[u]:
                if vu < dist[u]:
                    return order[:settled], dist, CONTRADICTION
            elif not seen_any[u] or vu < seen[u]:
                seen_any[u] = True
                seen[u] = vu
                size = _heap_push(hd, hc, hv, size, vu, counter, u)
                counter += 1
    out = order[:settled]
    return out, dist[out], 0


@njit(**NUMBA_FLAGS)
def pagerank_step(indptr, sources, coef, x, lo, hi, alpha, dangling_mass, dw, p, out):
    """``out[v] = alpha * (sum_u x[u] * coef[u -> v] + dangling_mass * dw[v]) +
    (1 - alpha) * p[v]`` for v in lo..hi-1 (in-edges: ``sources``); returns the L1
    change of that range."""
    err = 0.0
    for v in range(lo, hi):
        s = 0.0
        for k in range(indptr[v], indptr[v + 1]):
            s += x[sources[k]] * coef[k]
        new = alpha * (s + dangling_mass * dw[v]) + (1.0 - alpha) * p[v]
        out[v] = new
        err += abs(new - x[v])
    return err


@njit(**NUMBA_FLAGS)
def _dangling_sum(x, dangling):
    s = 0.0
    for i in range(dangling.shape[0]):
        s += x[dangling[i]]
    return s


def pagerank_iterate(in_csr, coef, x, alpha, dangling, dw, p, max_iter, tol, threads=None):
    """NetworkX's power iteration: up to ``max_iter`` steps, stopping at the first whose
    L1 change is below ``n * tol``. Returns (x, converged)."""
    indptr, sources = in_csr[0], in_csr[1]
    n = x.shape[0]
    ranges = edge_ranges(indptr, min(threads or DEFAULT_THREADS, n // 50_000 + 1))
    pool = ThreadPoolExecutor(len(ranges)) if len(ranges) > 1 else None
    try:
        for _ in range(max_iter):
            out = np.empty_like(x)
            dm = _dangling_sum(x, dangling)
            args = (indptr, sources, coef, x)
            tail = (alpha, dm, dw, p, out)
            if pool is None:
                err = pagerank_step(*args, 0, n, *tail)
            else:
                futures = [pool.submit(pagerank_step, *args, lo, hi, *tail) for lo, hi in ranges]
                err = sum(f.result() for f in futures)
            x = out
            if err < n * tol:
                return x, True
        return x, False
    finally:
        if pool is not None:
            pool.shutdown()


@njit(**NUMBA_FLAGS)
def simple_degree(indptr, indices):
    """Distinct neighbours other than the vertex itself, per vertex (rows sorted)."""
    n = indptr.shape[0] - 1
    deg = np.zeros(n, dtype=np.int64)
    for v in range(n):
        last = -1
        c = 0
        for k in range(indptr[v], indptr[v + 1]):
            u = indices[k]
            if u != v and u != last:
                c += 1
            last = u
        deg[v] = c
    return deg


@njit(**NUMBA_FLAGS)
def upper_entries(indptr, indices):
    """Positions of the entries u -> v with v >= u (each undirected edge once, a
    self-loop once), in CSR order."""
    n = indptr.shape[0] - 1
    count = 0
    for u in range(n):
        for k in range(indptr[u], indptr[u + 1]):
            if indices[k] >= u:
                count += 1
    out = np.empty(count, dtype=np.int64)
    c = 0
    for u in range(n):
        for k in range(indptr[u], indptr[u + 1]):
            if indices[k] >= u:
                out[c] = k
                c += 1
    return out


@njit(**NUMBA_FLAGS)
def mirror_values(indptr, indices, values):
    """Fill every entry u -> v with v < u from its twin v -> u (an undirected graph
    stores each edge in both rows; ``values`` is set on the entries with v >= u). The
    entries v -> u with u < v are bucketed by u, in order of v (a counting sort); row u
    then scatters its bucket into ``slot[v]`` and reads each twin from there: O(n + m),
    no search."""
    n = indptr.shape[0] - 1
    start = np.zeros(n + 1, dtype=np.int64)
    for v in range(n):
        for k in range(indptr[v], indptr[v + 1]):
            if indices[k] > v:
                start[indices[k] + 1] += 1
    for u in range(n):
        start[u + 1] += start[u]
    fill = start[:n].copy()
    entry = np.empty(start[n], dtype=np.int64)  # bucket u: the entries v -> u, v < u
    source = np.empty(start[n], dtype=np.int64)
    for v in range(n):
        for k in range(indptr[v], indptr[v + 1]):
            u = indices[k]
            if u > v:
                entry[fill[u]] = k
                source[fill[u]] = v
                fill[u] += 1
    slot = np.empty(n, dtype=np.int64)
    for u in range(n):
        for b in range(start[u], start[u + 1]):
            slot[source[b]] = entry[b]
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if v < u:
                values[k] = values[slot[v]]
