"""Plumbing shared by the peer-level (``run_bsp``) kernels that run one search per
source: betweenness and APSP. An indexed binary heap for Dijkstra, a progress line for
peer 0's share of the sources, and the checks of ``runtime``/``threads`` and of the
weights a search may use."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.views import check_weights

__all__ = [
    "heap_sift_up",
    "heap_push",
    "heap_pop",
    "PeerProgress",
    "resolve_runtime",
    "resolve_weighted",
]


# ------------------------------------------------------------------ binary heap
# An indexed binary min-heap of vertices keyed by ``key[v]``, with decrease-key: O(n)
# memory (heap and pos, int32), unlike a heap of (distance, vertex) entries that can grow
# to one entry per edge. pos[v]: index in heap, -1 never queued, -2 settled.
@njit(**NUMBA_FLAGS)
def heap_sift_up(heap, pos, key, i):
    v = heap[i]
    kv = key[v]
    while i > 0:
        p = (i - 1) >> 1
        u = heap[p]
        if key[u] <= kv:
            break
        heap[i] = u
        pos[u] = i
        i = p
    heap[i] = v
    pos[v] = i


@njit(**NUMBA_FLAGS)
def heap_push(heap, pos, key, size, v):
    heap[size] = v
    heap_sift_up(heap, pos, key, size)
    return size + 1


@njit(**NUMBA_FLAGS)
def heap_pop(heap, pos, key, size):
    """Remove the minimum; returns (vertex, new size). The vertex is marked settled."""
    top = heap[0]
    size -= 1
    if size > 0:
        v = heap[size]
        kv = key[v]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            if c + 1 < size and key[heap[c + 1]] < key[heap[c]]:
                c += 1
            u = heap[c]
            if key[u] >= kv:
                break
            heap[i] = u
            pos[u] = i
            i = c
        heap[i] = v
        pos[v] = i
    pos[top] = -2
    return top, size


class PeerProgress:
    """Peer 0's share of the work (all shares are about equal), through
    :class:`hpgraph.progress.Counter`: a live line on a terminal, plain lines piped."""

    def __init__(self, total, peers, what="sources"):
        from hpgraph.progress import Counter

        self._c = Counter(f"peer 0 of {peers}", total, what)

    def advance(self, k):
        self._c.advance(k)

    def close(self):
        self._c.close()


def resolve_runtime(runtime, threads):
    """(runtime for run_bsp, number of local peers)."""
    if runtime == "local":
        runtime = None
    if threads is not None and (not isinstance(threads, int | np.integer) or threads < 1):
        raise InvalidArgumentError(f"threads must be a positive integer, got {threads!r}")
    return runtime, threads


def resolve_weighted(graph, weighted, what, *, positive):
    """Whether to use weights (None: when the graph has them); checks them."""
    if weighted is None:
        weighted = graph.weights is not None
    elif weighted and graph.weights is None:
        raise InvalidArgumentError(f"{what}: weighted=True but the graph has no edge weights")
    if weighted:
        check_weights(graph, what, positive=positive, hint=" (pass weighted=False to count hops)")
    return bool(weighted)
