"""Single-source shortest paths by delta-stepping (Meyer and Sanders, J. Algorithms 2003)
with thread-local buckets, as the GAP reference's ``sssp`` runs it: a peer-level program
of the peers of one address space.

Vertices wait in buckets of width ``delta`` by tentative distance. A round takes the
lowest non-empty bucket ``b`` as the shared *frontier* and relaxes the out-edges of every
frontier vertex whose distance is still in ``b`` or above (an entry left behind by a later
improvement is skipped); an improved vertex goes to the bucket of its new distance, in
the relaxing peer's own bins. Peers take frontier chunks from an atomic counter, and a
distance only ever decreases through a compare-and-swap on its bits (for non-negative
doubles the order of the bit patterns as int64 is the order of the values), so no
improvement is lost. Then every peer offers its smallest non-empty bin (an atomic
minimum), the winners copy that bin into the next frontier, and the next round starts.

The answer equals Bellman-Ford's bit for bit: both reach the unique fixpoint of
``dist[v] = min over in-edges (dist[u] + w)`` with the same rounded additions.

Memory: 8 B per vertex (distances), the frontier (8 B per entry, grown by doubling; an
entry per improvement in the round before) and each peer's bins (the same, per peer).
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, types
from numba.typed import List

from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.atomics import compare_and_swap

__all__ = ["delta_stepping", "default_delta"]

#: frontier entries per chunk taken from the shared counter
_CHUNK = 64
_NO_BIN = np.iinfo(np.int64).max


@njit(**NUMBA_FLAGS)
def _fetch_add(counter, i, k):
    while True:
        old = counter[i]
        if compare_and_swap(counter, i, old, old + k) == old:
            return old


@njit(**NUMBA_FLAGS)
def _atomic_min(array, i, x):
    while True:
        old = array[i]
        if x >= old or compare_and_swap(array, i, old, x) == old:
            return


@njit(**NUMBA_FLAGS)
def _push(bins, sizes, b, v):
    while len(bins) <= b:
        bins.append(np.empty(16, dtype=np.int64))
        sizes.append(0)
    arr = bins[b]
    s = sizes[b]
    if s == arr.shape[0]:
        grown = np.empty(2 * s, dtype=np.int64)
        grown[:s] = arr
        bins[b] = grown
        arr = grown
    arr[s] = v
    sizes[b] = s + 1


@njit(**NUMBA_FLAGS)
def _relax_round(indptr, indices, weights, dist, bits, frontier, size, counter, slot, delta,
                 current, bins, sizes, scratch):  # fmt: skip
    """Relax the frontier entries taken from ``counter[slot]``; returns this peer's
    smallest non-empty bin (``_NO_BIN``: none)."""
    weighted = weights.shape[0] > 0
    floor = delta * current
    as_float = scratch.view(np.float64)
    while True:
        start = _fetch_add(counter, slot, _CHUNK)
        if start >= size:
            break
        for i in range(start, min(start + _CHUNK, size)):
            u = frontier[i]
            du = dist[u]
            if du < floor:  # improved since it was queued: relaxed from a lower bucket
                continue
            for k in range(indptr[u], indptr[u + 1]):
                v = indices[k]
                nd = du + (weights[k] if weighted else 1.0)
                as_float[0] = nd
                nb = scratch[0]
                while True:
                    ob = bits[v]
                    if nb >= ob:
                        break
                    if compare_and_swap(bits, v, ob, nb) == ob:
                        _push(bins, sizes, np.int64(nd / delta), v)
                        break
    for b in range(current, len(sizes)):
        if sizes[b] > 0:
            return b
    return _NO_BIN


class _Shared:
    """What the peers of one address space share: distances, the frontier, counters."""

    def __init__(self, n, source):
        self.lock = threading.Lock()
        self.dist = np.full(n, np.inf)
        self.dist[source] = 0.0
        self.frontier = np.array([source], dtype=np.int64)
        self.size = 1
        # [0]: chunk counter of this round, [1]: next bin (atomic min), [2]: next frontier
        # fill, [3]: entries the next frontier needs
        self.counter = np.zeros(4, dtype=np.int64)
        self.rounds = 0


def _peer(peer, indptr, indices, weights, shared, delta):
    dist, bits = shared.dist, shared.dist.view(np.int64)
    bins = List.empty_list(types.int64[::1])
    sizes = List.empty_list(types.int64)
    scratch = np.zeros(1, dtype=np.int64)
    current = 0
    c = shared.counter
    while True:
        mine = _relax_round(indptr, indices, weights, dist, bits, shared.frontier, shared.size,
                            c, 0, delta, current, bins, sizes, scratch)  # fmt: skip
        _atomic_min(c, 1, mine)
        peer.sync()
        nxt = int(c[1])
        if nxt == _NO_BIN:
            return
        if mine == nxt:
            _fetch_add(c, 3, sizes[nxt])
        peer.sync()
        if peer.pid == 0:
            if shared.frontier.shape[0] < c[3]:
                shared.frontier = np.empty(max(int(c[3]), 2 * shared.frontier.shape[0]), np.int64)
            shared.size = int(c[3])
            shared.rounds += 1
            c[0] = 0
            c[2] = 0
        peer.sync()
        if mine == nxt:
            at = _fetch_add(c, 2, sizes[nxt])
            shared.frontier[at : at + sizes[nxt]] = bins[nxt][: sizes[nxt]]
            sizes[nxt] = 0
        current = nxt
        peer.sync()
        if peer.pid == 0:
            c[1] = _NO_BIN
            c[3] = 0
        peer.sync()


def default_delta(graph) -> float:
    """Bucket width: the mean weight (1 unweighted) times 32 over the mean degree, so a
    bucket holds about the vertices one round can settle (Meyer and Sanders' Theta(1/d)
    for uniform [0, 1) weights; 1 on unweighted graphs, where it is BFS by levels)."""
    if graph.weights is None or graph.num_stored_edges == 0:
        return 1.0
    degree = graph.num_stored_edges / max(graph.n, 1)
    return max(float(graph.weights.mean()) * 32.0 / max(degree, 1.0), 1e-9)


def delta_stepping(graph, source, *, delta=None, threads=None, runtime=None):
    """(distances from internal id ``source``: float64, inf if unreachable; the BSP
    result; rounds) on ``threads`` peers of the local runtime (``runtime``: None, "local"
    or a :class:`~hpgraph.runtimes.LocalRuntime`)."""
    from hpgraph.engine.bsp import run_bsp

    delta = default_delta(graph) if delta is None else float(delta)
    shared = _Shared(graph.n, source)
    shared.counter[1] = _NO_BIN
    w = graph.weights if graph.weights is not None else np.empty(0, dtype=np.float64)
    args = (graph.indptr, graph.indices, w, shared, delta)
    job = run_bsp(_peer, peers=threads, args=args, runtime=runtime)
    return shared.dist, job, shared.rounds
