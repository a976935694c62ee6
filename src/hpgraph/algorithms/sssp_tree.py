"""Given the distances of a single-source shortest-path run, returns a shortest-path tree:
each reached vertex's parent is the smallest id among its *tight* in-neighbours at a
smaller distance (``dist[u] < dist[v]`` and ``dist[u] + w(u, v) == dist[v]``, exact,
since ``dist[v]`` was computed as that very sum); the source is its own parent, an
unreached vertex has -1. Vertices reached only over zero-weight edges from vertices at
their own distance get a parent in a breadth-first pass over those edges from the
vertices already in the tree, so the tree has no cycle (the two ends of a zero-weight
edge are each other's tight neighbours).

The same tree three ways: :func:`parents` in one pass (any runtime's distances, gathered),
and chunk by chunk on threads sharing memory (:func:`parents_chunk`, which delta-stepping
runs in its peers once the distances are final): on an undirected graph each vertex
scans its own row (its in-edges) and stops at the first tight neighbour, the smallest
since rows are sorted; on a directed graph each vertex offers itself to its tight
out-neighbours by an atomic minimum. Either way a vertex's parent does not depend on
which thread took which chunk.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.atomics import atomic_min

__all__ = ["add_weight", "parents", "parents_chunk", "zero_weight_parents", "parents_part"]


def add_weight(d, w):
    """``d + w`` in the precision of the distance ``d``: a float32 distance adds the
    weight rounded to float32, in float32 (as the float32 runs compute every distance, so
    the tree's tightness test is exact in either precision); compiled code only."""
    return d + w


@overload(add_weight)
def _add_weight(d, w):
    if d == types.float32:
        return lambda d, w: d + np.float32(w)
    return lambda d, w: d + w


@njit(**NUMBA_FLAGS)
def parents(indptr, indices, weights, dist, source):
    """The tree of the module docstring, sequentially (out-edges, in vertex order)."""
    n = dist.shape[0]
    parent = np.full(n, -1, dtype=np.int64)
    parent[source] = source
    weighted = weights.shape[0] > 0
    for u in range(n):
        du = dist[u]
        if du == np.inf:
            continue
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            wk = weights[k] if weighted else 1.0
            if parent[v] < 0 and du < dist[v] and add_weight(du, wk) == dist[v]:
                parent[v] = u
    zero_weight_parents(indptr, indices, weights, dist, parent)
    return parent


@njit(**NUMBA_FLAGS)
def parents_chunk(indptr, indices, weights, dist, parent, start, stop, undirected):
    """Parents by tight edges for vertices ``start..stop-1``. ``parent``: ``n`` where none
    is known yet (the source holds itself); on an undirected graph the vertices of the
    chunk take their own (pull), on a directed one they offer themselves to their
    out-neighbours (push, atomic minimum), so chunks run on several threads at once.
    Unsigned indices, as in delta-stepping's edge loop: no negative-index wraparound per
    access (kron20, 2 threads: the pass 20-30% faster)."""
    weighted = weights.shape[0] > 0
    for x in range(start, stop):
        dx = dist[x]
        if dx == np.inf:
            continue
        if undirected:
            if parent[x] != parent.shape[0]:  # the source
                continue
            for k in range(np.uint64(indptr[x]), np.uint64(indptr[x + 1])):
                u = np.uint64(indices[k])
                du = dist[u]
                if du < dx and add_weight(du, weights[k] if weighted else 1.0) == dx:
                    parent[x] = np.int64(u)
                    break
        else:
            for k in range(np.uint64(indptr[x]), np.uint64(indptr[x + 1])):
                v = np.uint64(indices[k])
                if dx < dist[v] and add_weight(dx, weights[k] if weighted else 1.0) == dist[v]:
                    atomic_min(parent, v, x)


@njit(**NUMBA_FLAGS)
def zero_weight_parents(indptr, indices, weights, dist, parent):
    """Give a parent (in place; -1: none yet) to each reached vertex without one, by a
    breadth-first pass over tight zero-weight edges from the vertices in the tree."""
    n = dist.shape[0]
    missing = False
    for v in range(n):
        if parent[v] < 0 and dist[v] != np.inf:
            missing = True
            break
    if not missing:  # no zero-weight ties (always so unweighted)
        return
    queue = np.empty(n, dtype=np.int64)
    tail = 0
    for u in range(n):
        if parent[u] >= 0:
            queue[tail] = u
            tail += 1
    head = 0
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u]
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if parent[v] < 0 and add_weight(du, weights[k]) == dist[v]:  # a zero-weight tie
                parent[v] = u
                queue[tail] = v
                tail += 1


def parents_part(part, dist, source):
    """The tree of the module docstring for a partitioned graph (each MPI rank holding its
    own rows, :class:`~hpgraph.graph.part.PartGraph`; ``dist`` gathered on every rank):
    each rank offers its own vertices as parents along their tight out-edges, and a
    minimum over the ranks (``Allreduce``) keeps the smallest. Zero-weight ties then
    grow the tree a level per round, each new vertex taking the smallest offer (a valid
    tree; the sequential pass may pick another tight vertex of the same distance)."""
    from mpi4py import MPI

    n = part.n
    w = part.weights if part.weights is not None else np.empty(0, dtype=np.float64)
    parent = np.full(n, -1, dtype=np.int64)
    parent[source] = source
    zero = False
    while True:
        offer = np.full(n, n, dtype=np.int64)
        _offer(part.indptr, part.indices, w, dist, part.lo, part.hi, parent, offer, zero)
        part.comm.Allreduce(MPI.IN_PLACE, offer, op=MPI.MIN)
        new = offer < n
        parent[new] = offer[new]
        if not (parent < 0)[np.isfinite(dist)].any() or (zero and not new.any()):
            return parent
        zero = True


@njit(**NUMBA_FLAGS)
def _offer(indptr, indices, weights, dist, lo, hi, parent, offer, zero):
    """offer[v] = the smallest own vertex u (rows lo..hi-1) with a tight edge u -> v at a
    smaller distance, or (``zero``) a tight zero-weight edge from u in the tree to v
    without a parent."""
    weighted = weights.shape[0] > 0
    for u in range(lo, hi):
        du = dist[u]
        if du == np.inf or (zero and parent[u] < 0):
            continue
        for k in range(indptr[u], indptr[u + 1]):
            v = indices[k]
            if parent[v] >= 0 or u >= offer[v]:
                continue
            wk = weights[k] if weighted else 1.0
            if add_weight(du, wk) == dist[v] and (du == dist[v] if zero else du < dist[v]):
                offer[v] = u
