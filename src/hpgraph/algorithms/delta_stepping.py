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
A peer's rounds run in one compiled loop, with a compiled barrier
(:mod:`~hpgraph.algorithms.delta_barrier`) in place of the engine's ``peer.sync()``. When
no bin is left the peers find the shortest-path tree
(:mod:`~hpgraph.algorithms.sssp_tree`), chunks of vertices taken in turn.

The answer equals Bellman-Ford's bit for bit: both reach the unique fixpoint of
``dist[v] = min over in-edges (dist[u] + w)`` with the same rounded additions.

Memory: 16 B per vertex (distances, and the distance each vertex's edges were last relaxed
at, so that duplicate entries relax once) and each peer's bins
(:mod:`~hpgraph.algorithms.delta_bins`: numpy blocks, 4 B per queued entry on graphs of
fewer than 2^31 vertices, 8 B above, blocks reused once their bucket is consumed; a ring
of buckets, 24 B per slot, at most twice the largest weight / delta + 2 slots) and
published array (a copy of its largest published bucket). Nothing per edge. 8 B per vertex
in float32.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, typeof, types
from numba.extending import intrinsic
from numba.typed import List

from hpgraph.algorithms.delta_barrier import CELLS, abort, wait
from hpgraph.algorithms.delta_bins import (
    BLOCK,
    blocks_for,
    chain_block,
    detach,
    has_room,
    lowest,
    new_bins,
    release,
    reserve,
    ring_slot,
    take,
)
from hpgraph.algorithms.sssp_tree import add_weight, parents_chunk, zero_weight_parents
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.atomics import atomic_min, compare_and_swap, fetch_add
from hpgraph.errors import InvalidArgumentError

__all__ = ["delta_stepping", "default_delta", "weight_scan"]

#: frontier entries per chunk taken from the shared counter
_CHUNK = 64
#: a peer relaxes its own bin of the current bucket at once while it is smaller (GAP's
#: kBinSizeThreshold)
_FUSE = 1000
#: vertices per chunk of the parent pass
_PARENT_CHUNK = 4096
_NO_BIN = np.iinfo(np.int64).max
#: where the shared counters keep the rounds and the barrier
_ROUNDS, _BARRIER = 5, 6
#: the largest weight / delta allowed: each peer's ring of buckets
#: (:mod:`~hpgraph.algorithms.delta_bins`) then takes at most 2^25 slots, 768 MiB
MAX_SPAN = 2**24


#: a distance's type -> the integer type of its bits (the compare-and-swap's operand)
_BITS = {types.float64: types.int64, types.float32: types.int32}
_INT_OF = {np.dtype(np.float64): np.int64, np.dtype(np.float32): np.int32}


@intrinsic
def _bits_of(typingctx, x):
    """The bits of a float64 (float32) ``x`` as an int64 (int32): a register move, not a
    store and a load."""
    if x not in _BITS:
        return None
    bits = _BITS[x]

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(bits))

    return bits(x), codegen


@intrinsic
def _value_of(typingctx, x):
    """The float64 (float32) whose bits are int64 (int32) ``x``."""
    value = {bits: v for v, bits in _BITS.items()}.get(x)
    if value is None:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(value))

    return value(x), codegen


@njit(**NUMBA_FLAGS)
def _relax_round(indptr, indices, weights, heaviest, bits, done, published, sizes_pub, counter,
                 slot, delta, current, pool, link, fill, head, tail, count, meta):  # fmt: skip
    """Relax the frontier, the concatenation of ``published[p][:sizes_pub[p]]`` over the
    peers, in chunks taken from ``counter[slot]``; then, while this peer's own bucket
    ``current`` holds fewer than ``_FUSE`` entries, relax those too (bucket fusion, Zhang
    et al., CGO 2020: a round per refill of the bucket would cost two barriers each).
    Returns (this peer's lowest non-empty bucket, ``_NO_BIN`` if none; its bins' arrays,
    grown or not).

    A frontier entry is skipped when its distance fell below the bucket since it was
    queued (it was relaxed from a lower bucket) or when its edges were already relaxed at
    this distance (``done[u]``: the bits of that distance; a duplicate entry). "Below the
    bucket" is ``int(d / delta) < current``, the very computation that numbered the
    bucket: ``d < delta * current`` is not the same test in floating point (delta 9/14:
    27 / delta rounds to 42 but 42 * delta to 27.000000000000004, so a vertex at 27
    queued in bucket 42 was skipped there and its edges never relaxed). An
    improved vertex goes into this peer's bucket of its new distance. One loop, the
    relaxation and the push written out in it: compiled calls in the edge loop (their
    array arguments' reference counts) cost as much as the relaxation itself. The bins
    make room for a vertex's pushes before its edges (``heaviest``: the largest weight
    bounds the buckets they reach), so the edge loop has no growth check. The edge loop
    indexes with unsigned integers: numba then emits no negative-index wraparound (a
    test and the array's length kept live per access), and the loop's values stay in
    registers (kron20, 2 threads: the relaxation 17-23% faster)."""
    weighted = weights.shape[0] > 0
    total = 0
    for p in range(sizes_pub.shape[0]):
        total += sizes_pub[p]
    seg = pool[:0]  # the entries being read: a piece of a published array or a block
    j = end = i = stop = 0
    blk = -1
    fusing = False
    while True:
        if j == end:  # the next piece: of the frontier's chunk, then of the own bucket
            if not fusing:
                if i == stop:
                    i = fetch_add(counter, slot, _CHUNK)
                    if i >= total:
                        fusing = True
                        continue
                    stop = min(i + _CHUNK, total)
                p = 0
                base = 0
                while base + sizes_pub[p] <= i:  # the peer array holding entry i
                    base += sizes_pub[p]
                    p += 1
                seg = published[p][: sizes_pub[p]]
                j = i - base
                end = min(stop - base, sizes_pub[p])
                i += end - j
            else:
                if blk >= 0:
                    blk = release(link, meta, blk)
                if blk < 0:
                    if not 0 < count[ring_slot(head, current)] < _FUSE:
                        break
                    # pushes to `current` start a new chain; this one is read once
                    blk = detach(head, tail, count, current)
                seg = pool[blk * BLOCK : blk * BLOCK + fill[blk]]
                j = 0
                end = fill[blk]
            continue
        u = seg[j]
        j += 1
        db = bits[u]
        if done[u] == db:
            continue
        du = _value_of(db)
        lo = np.int64(du / delta)
        if lo < current:  # the test the pushes' bucket numbers were made by (see above)
            continue
        done[u] = db  # one read of the distance: the bits marked are those relaxed
        first = indptr[u]
        last = indptr[u + 1]
        hi = np.int64(add_weight(du, heaviest) / delta)  # no push of u's goes above bucket hi
        blocks = blocks_for(last - first, lo, hi)
        if last > first and not has_room(link, head, meta, current, hi, blocks):
            pool, link, fill, head, tail, count = reserve(
                pool, link, fill, head, tail, count, meta, current, hi, blocks
            )
        mask = head.shape[0] - 1  # the ring's (bucket b lives in slot b & mask)
        for k in range(np.uint64(first), np.uint64(last)):  # unsigned: see the docstring
            v = np.uint64(indices[k])
            nd = add_weight(du, weights[k] if weighted else 1.0)
            nb = _bits_of(nd)
            ob = bits[v]
            if nb > ob:  # the common case (no improvement, no tie) first, alone
                continue
            while nb < ob:
                seen = compare_and_swap(bits, v, ob, nb)
                if seen == ob:  # push v into its bucket (written out: see the docstring)
                    b = np.int64(nd / delta) & mask
                    t = tail[b]
                    if t < 0 or fill[t] == BLOCK:
                        t = chain_block(link, fill, head, tail, meta, b, t)
                    pool[t * BLOCK + fill[t]] = v
                    fill[t] += 1
                    count[b] += 1
                    break
                ob = seen
    b = lowest(count, meta, current)
    return (_NO_BIN if b < 0 else b), pool, link, fill, head, tail, count


class _Shared:
    """What the peers of one address space share: distances, the frontier (one published
    array per peer: its bucket being processed) and the counters."""

    def __init__(self, n, source, dtype, precision):
        self.dist = np.full(n, np.inf, dtype=precision)
        self.dist[source] = 0.0
        self.bits = self.dist.view(_INT_OF[self.dist.dtype])  # what the CAS works on
        self.parent = np.full(n, n, dtype=np.int64)  # n: none known yet (sssp_tree)
        self.parent[source] = source
        self.done = np.full(n, -1, dtype=self.bits.dtype)  # no distance has these bits
        self.source = source
        self.dtype = dtype
        self.lock = threading.Lock()
        self.published = None  # made by the first peer to arrive (below)
        self.sizes = None
        # [0], [1]: chunk counters of even and odd rounds; [2], [3]: their next bins;
        # [4]: the parent pass's chunk counter; [_ROUNDS]: rounds; then the barrier's cells
        self.counter = np.zeros(_BARRIER + CELLS, dtype=np.int64)
        self.counter[2:4] = _NO_BIN

    def join(self, peers):
        with self.lock:
            if self.published is None:
                self.published = List.empty_list(typeof(np.empty(0, dtype=self.dtype)))
                self.published.append(np.array([self.source], dtype=self.dtype))
                for _ in range(peers - 1):
                    self.published.append(np.empty(0, dtype=self.dtype))
                self.sizes = np.zeros(peers, dtype=np.int64)
                self.sizes[0] = 1


@njit(**NUMBA_FLAGS)
def _rounds(indptr, indices, weights, heaviest, bits, done, published, sizes, c, pid, peers,
            delta, pool, link, fill, head, tail, count, meta, out):  # fmt: skip
    """This peer's rounds until no bin is left; False if another peer failed. Two barriers
    a round (:mod:`~hpgraph.algorithms.delta_barrier`, compiled): after relaxing (the next
    bucket is then known), and after every peer has published its bin of it (copied into
    its published array, which no peer reads again before the next round's first
    barrier). A round's counters are reset one round ahead, when no peer can still be
    using them."""
    current = r = 0
    while True:
        par = r & 1
        mine, pool, link, fill, head, tail, count = _relax_round(
            indptr, indices, weights, heaviest, bits, done, published, sizes, c, par, delta,
            current, pool, link, fill, head, tail, count, meta,
        )  # fmt: skip
        atomic_min(c, 2 + par, mine)
        if not wait(c, _BARRIER, peers):
            return False
        nxt = c[2 + par]
        if nxt == _NO_BIN:
            return True
        if pid == 0:
            c[1 - par] = 0
            c[3 - par] = _NO_BIN
            c[_ROUNDS] += 1
        if mine == nxt:
            out, s = take(pool, link, fill, head, tail, count, meta, nxt, out)
            published[pid] = out  # the same array unless it had to grow
            sizes[pid] = s
        else:
            sizes[pid] = 0
        if not wait(c, _BARRIER, peers):
            return False
        current = nxt
        r += 1


def _peer(peer, indptr, indices, weights, heaviest, undirected, shared, delta):
    """The rounds in one compiled loop (:func:`_rounds`); once no bin is left the
    distances are final and the peers find the parents, chunks of vertices taken in turn.
    A peer that fails makes the others stop at their next barrier."""
    pool, link, fill, head, tail, count, meta = new_bins(shared.dtype)
    c = shared.counter
    shared.join(peer.num_peers)
    peer.sync()
    try:
        ok = _rounds(
            indptr, indices, weights, heaviest, shared.bits, shared.done,
            shared.published, shared.sizes, c, peer.pid, peer.num_peers, delta,
            pool, link, fill, head, tail, count, meta, shared.published[peer.pid],
        )  # fmt: skip
    except BaseException:
        abort(c, _BARRIER)
        raise
    if not ok:
        from hpgraph.engine.bsp import PeerStopped

        raise PeerStopped("another peer failed; this peer stopped")
    _parent_pass(indptr, indices, weights, shared.dist, shared.parent, c, undirected)


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
    weights' sum; the largest): the check, the mean and the bins' bound in one pass."""
    total = largest = 0.0
    for k in range(weights.shape[0]):
        x = weights[k]
        if not (x >= 0.0 and x < np.inf):
            return k, total, largest
        total += x
        largest = max(largest, x)
    return -1, total, largest


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


def delta_stepping(graph, source, *, delta=None, threads=None, runtime=None, heaviest=None,
                   dtype=np.float64):  # fmt: skip
    """(distances from internal id ``source``: ``dtype``, float64 or float32, inf if
    unreachable; parents, as :mod:`~hpgraph.algorithms.sssp_tree` defines them; the BSP
    result; rounds) on ``threads`` peers of the local runtime (``runtime``: None, "local"
    or a :class:`~hpgraph.runtimes.LocalRuntime`); ``heaviest``: the largest weight, if
    known (:func:`weight_scan`). In float32 each weight is rounded to float32 and added
    in float32 (:func:`~hpgraph.algorithms.sssp_tree.add_weight`)."""
    from hpgraph.engine.bsp import run_bsp

    delta = default_delta(graph) if delta is None else float(delta)
    shared = _Shared(graph.n, source, graph.indices.dtype, dtype)
    w = graph.weights if graph.weights is not None else np.empty(0, dtype=np.float64)
    if heaviest is None:
        heaviest = float(w.max()) if w.size else 1.0
    if heaviest / delta > MAX_SPAN:
        ring = 1 << int(np.ceil(np.log2(heaviest / delta + 2)))
        raise InvalidArgumentError(
            f"delta {delta:.3g} is {heaviest / delta:.3g} times smaller than the largest "
            f"weight ({heaviest:.6g}): delta-stepping would keep a ring of {ring:,} buckets "
            f"per thread ({24 * ring / 2**30:.1f} GiB each); give delta >= "
            f"{heaviest / MAX_SPAN:.3g} (the largest weight / 2^24) or leave it to the "
            f"default ({default_delta(graph):.3g})"
        )
    args = (graph.indptr, graph.indices, w, float(heaviest), not graph.directed, shared, delta)
    job = run_bsp(_peer, peers=threads, args=args, runtime=runtime)
    parent = shared.parent
    parent[parent == graph.n] = -1
    zero_weight_parents(graph.indptr, graph.indices, w, shared.dist, parent)
    return shared.dist, parent, job, int(shared.counter[_ROUNDS])
