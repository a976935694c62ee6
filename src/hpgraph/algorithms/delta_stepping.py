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
improvement is lost. A peer whose own bin of the bucket stays small relaxes it at once
(bucket fusion, as GAP). Then every peer offers its smallest non-empty bin (an atomic
minimum), the winners publish that bin as the next frontier, and the next round starts.
When no bin is left the peers find the shortest-path tree
(:mod:`~hpgraph.algorithms.sssp_tree`), chunks of vertices taken in turn.

The answer equals Bellman-Ford's bit for bit: both reach the unique fixpoint of
``dist[v] = min over in-edges (dist[u] + w)`` with the same rounded additions.

Memory: 16 B per vertex (distances, and the distance each vertex's edges were last relaxed
at, so that duplicate entries relax once) and the bins, 8 B per queued entry (an entry
per improvement; a published bin's array is reused once its round is over).
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, types
from numba.typed import List

from hpgraph.algorithms.sssp_tree import parents_chunk, zero_weight_parents
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.atomics import atomic_min, compare_and_swap, fetch_add

__all__ = ["delta_stepping", "default_delta", "weight_scan"]

#: frontier entries per chunk taken from the shared counter
_CHUNK = 64
#: a peer relaxes its own bin of the current bucket at once while it is smaller (GAP's
#: kBinSizeThreshold)
_FUSE = 1000
#: vertices per chunk of the parent pass
_PARENT_CHUNK = 4096
_NO_BIN = np.iinfo(np.int64).max


@njit(**NUMBA_FLAGS)
def _push(bins, sizes, b, v):
    while len(bins) <= b:
        bins.append(np.empty(16, dtype=np.int64))
        sizes.append(0)
    arr = bins[b]
    s = sizes[b]
    if s == arr.shape[0]:
        grown = np.empty(max(16, 2 * s), dtype=np.int64)
        grown[:s] = arr
        bins[b] = grown
        arr = grown
    arr[s] = v
    sizes[b] = s + 1


@njit(**NUMBA_FLAGS)
def _relax(u, indptr, indices, weights, dist, bits, done, floor, delta, bins, sizes, scratch):
    """Relax ``u``'s out-edges unless its distance fell below ``floor`` since it was
    queued (it was relaxed from a lower bucket) or its edges were already relaxed at this
    distance (``done[u]``: the bits of that distance); an improved vertex goes into this
    peer's bin of its new distance."""
    du = dist[u]
    if du < floor:
        return
    db = bits[u]
    if done[u] == db:  # a duplicate entry: already relaxed at this distance
        return
    done[u] = db
    weighted = weights.shape[0] > 0
    as_float = scratch.view(np.float64)
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


@njit(**NUMBA_FLAGS)
def _relax_round(indptr, indices, weights, dist, bits, done, published, sizes_pub, counter,
                 slot, delta, current, bins, sizes, scratch):  # fmt: skip
    """Relax the frontier, the concatenation of ``published[p][:sizes_pub[p]]`` over the
    peers, in chunks taken from ``counter[slot]``; then, while this peer's own bin of the
    bucket holds fewer than ``_FUSE`` entries, relax those too (bucket fusion, Zhang et
    al., CGO 2020: a round per refill of the bucket would cost two barriers each). Returns
    this peer's smallest non-empty bin (``_NO_BIN``: none)."""
    floor = delta * current
    total = 0
    for p in range(sizes_pub.shape[0]):
        total += sizes_pub[p]
    while True:
        start = fetch_add(counter, slot, _CHUNK)
        if start >= total:
            break
        stop = min(start + _CHUNK, total)
        p = 0
        base = 0
        while base + sizes_pub[p] <= start:  # the peer array holding entry `start`
            base += sizes_pub[p]
            p += 1
        i = start
        while i < stop:
            while i - base >= sizes_pub[p]:
                base += sizes_pub[p]
                p += 1
            seg = published[p]
            end = min(stop, base + sizes_pub[p])
            for j in range(i - base, end - base):
                _relax(seg[j], indptr, indices, weights, dist, bits, done, floor, delta,
                       bins, sizes, scratch)  # fmt: skip
            i = end
    while current < len(sizes) and 0 < sizes[current] < _FUSE:
        mine = bins[current]
        s = sizes[current]
        bins[current] = np.empty(16, dtype=np.int64)
        sizes[current] = 0
        for j in range(s):
            _relax(mine[j], indptr, indices, weights, dist, bits, done, floor, delta,
                   bins, sizes, scratch)  # fmt: skip
    for b in range(current, len(sizes)):
        if sizes[b] > 0:
            return b
    return _NO_BIN


class _Shared:
    """What the peers of one address space share: distances, the frontier (one published
    array per peer: its bin of the bucket being processed) and the counters."""

    def __init__(self, n, source):
        self.dist = np.full(n, np.inf)
        self.dist[source] = 0.0
        self.parent = np.full(n, n, dtype=np.int64)  # n: none known yet (sssp_tree)
        self.parent[source] = source
        self.done = np.full(n, -1, dtype=np.int64)  # no distance has these bits
        self.source = source
        self.lock = threading.Lock()
        self.published = None  # made by the first peer to arrive (below)
        self.sizes = None
        # [0], [1]: chunk counters of even and odd rounds; [2], [3]: their next bins;
        # [4]: the parent pass's chunk counter
        self.counter = np.array([0, 0, _NO_BIN, _NO_BIN, 0], dtype=np.int64)
        self.rounds = 0

    def join(self, peers):
        with self.lock:
            if self.published is None:
                self.published = List.empty_list(types.int64[::1])
                self.published.append(np.array([self.source], dtype=np.int64))
                for _ in range(peers - 1):
                    self.published.append(np.empty(0, dtype=np.int64))
                self.sizes = np.zeros(peers, dtype=np.int64)
                self.sizes[0] = 1


def _peer(peer, indptr, indices, weights, undirected, shared, delta):
    """Two barriers a round: after relaxing (the next bucket is then known), and after
    every peer has published its bin of it. A round's counters are reset one round ahead,
    when no peer can still be using them. Once no bin is left the distances are final and
    the peers find the parents, chunks of vertices taken in turn."""
    dist, bits = shared.dist, shared.dist.view(np.int64)
    bins = List.empty_list(types.int64[::1])
    sizes = List.empty_list(types.int64)
    scratch = np.zeros(1, dtype=np.int64)
    c, pid = shared.counter, peer.pid
    shared.join(peer.num_peers)
    peer.sync()
    current = r = 0
    while True:
        par = r & 1
        mine = _relax_round(indptr, indices, weights, dist, bits, shared.done, shared.published,
                            shared.sizes, c, par, delta, current, bins, sizes, scratch)  # fmt: skip
        atomic_min(c, 2 + par, mine)
        peer.sync()
        nxt = int(c[2 + par])
        if nxt == _NO_BIN:
            _parent_pass(indptr, indices, weights, dist, shared.parent, c, undirected)
            return
        if pid == 0:
            c[1 - par] = 0
            c[3 - par] = _NO_BIN
            shared.rounds += 1
        if mine == nxt:  # publish the bin; its array comes back as the next spare
            spare = shared.published[pid]
            shared.published[pid] = bins[nxt]
            shared.sizes[pid] = sizes[nxt]
            bins[nxt] = spare
            sizes[nxt] = 0
        else:
            shared.sizes[pid] = 0
        peer.sync()
        current = nxt
        r += 1


@njit(**NUMBA_FLAGS)
def _parent_pass(indptr, indices, weights, dist, parent, counter, undirected):
    n = dist.shape[0]
    while True:
        start = fetch_add(counter, 4, _PARENT_CHUNK)
        if start >= n:
            return
        parents_chunk(indptr, indices, weights, dist, parent, start,
                      min(start + _PARENT_CHUNK, n), undirected)  # fmt: skip


@njit(**NUMBA_FLAGS)
def weight_scan(weights):
    """(index of the first weight that is not finite and non-negative, -1 if none; the
    weights' sum): the check and the mean in one pass."""
    total = 0.0
    for k in range(weights.shape[0]):
        x = weights[k]
        if not (x >= 0.0 and x < np.inf):
            return k, total
        total += x
    return -1, total


def default_delta(graph, mean_weight=None) -> float:
    """Bucket width: half the mean weight (``mean_weight``, if known) over the mean degree
    d (1 on unweighted graphs, where it is BFS by levels), widened by (16 / d)^2 below
    degree 16. Meyer and Sanders take Theta(1/d) for uniform [0, 1) weights; on Kronecker
    scale 20 (mean weight 0.5, d = 32, 2 threads) widths from 0.5x to 2x this one ran
    within 5% of each other, 4x and 8x 13-15% slower. On sparse, large-diameter graphs
    rounds (two barriers each) dominate instead: a 700 x 700 grid (d = 4) took 1.0 s in
    5,155 rounds at 0.5 mean / d, 0.20 s in 324 at 16 times that."""
    if graph.weights is None or graph.num_stored_edges == 0:
        return 1.0
    if mean_weight is None:
        mean_weight = float(graph.weights.mean())
    degree = max(graph.num_stored_edges / max(graph.n, 1), 1.0)
    widen = max(1.0, (16.0 / degree) ** 2)
    return max(mean_weight * 0.5 * widen / degree, 1e-12)


def delta_stepping(graph, source, *, delta=None, threads=None, runtime=None):
    """(distances from internal id ``source``: float64, inf if unreachable; parents, as
    :mod:`~hpgraph.algorithms.sssp_tree` defines them; the BSP result; rounds) on
    ``threads`` peers of the local runtime (``runtime``: None, "local" or a
    :class:`~hpgraph.runtimes.LocalRuntime`)."""
    from hpgraph.engine.bsp import run_bsp

    delta = default_delta(graph) if delta is None else float(delta)
    shared = _Shared(graph.n, source)
    w = graph.weights if graph.weights is not None else np.empty(0, dtype=np.float64)
    args = (graph.indptr, graph.indices, w, not graph.directed, shared, delta)
    job = run_bsp(_peer, peers=threads, args=args, runtime=runtime)
    parent = shared.parent
    parent[parent == graph.n] = -1
    zero_weight_parents(graph.indptr, graph.indices, w, shared.dist, parent)
    return shared.dist, parent, job, shared.rounds
