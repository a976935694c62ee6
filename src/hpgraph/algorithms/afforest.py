"""Weakly connected components by Afforest (Sutton, Ben-Nun and Barak, "Optimizing
Parallel Graph Connectivity Computation via Subgraph Sampling", IPDPS 2018), the
algorithm of the GAP reference's ``cc``: a peer-level BSP program.

A forest ``comp`` (``comp[v] == v`` at a root) is built by *linking* the two ends of
edges: the larger of the two roots is hooked under the smaller with a compare-and-swap
(:mod:`hpgraph.engine.atomics`), so a root is the smallest id of its tree and the
answer, after *compressing* every path, is the same as HashMin's (the smallest internal
id of each component). The phases, each ended by a barrier:

1. link every vertex to its first neighbour, compress; then to its second, compress
   (``NEIGHBOUR_ROUNDS``): on a power-law graph this already joins most of the giant
   component;
2. sample 1,024 vertices (seeded) and take the most frequent root ``c``;
3. link every vertex **not** in ``c`` to its remaining neighbours, compress. A vertex in
   ``c`` is skipped: an edge from it to a vertex outside ``c`` is linked from the other
   end (rows are symmetric), and an edge inside ``c`` joins nothing new. This skips most
   of the edges.

Peers that share an address space (the local runtime's threads) share one forest and
take chunks of their vertex range dynamically from an atomic counter, so a busy core
does not hold up a phase. Peers with forests of their own (MPI ranks) each link their
own range and then *merge*: every peer sends the (vertex, root) pairs of its non-roots
to the others, which link them into their forests; after a merge and a compression
every forest holds the same roots, so phase 2 picks the same ``c`` everywhere. A rank
holding only its own rows (a :class:`~hpgraph.graph.part.PartGraph`) runs the same
program on them: its range is its rows, each edge is linked by the rank that holds its
row (a symmetric graph holds it twice, once per end), and the two merges are the
boundary rounds that join what different ranks linked.

Memory: ``comp`` (8 B per vertex of the whole graph) per forest; the graph's symmetric
view is read, not copied; the chunks (8 B each, 64 per peer) are kept on it. A merge
sends each forest's non-roots, 16 B each, to every other forest.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.atomics import compare_and_swap, fetch_add
from hpgraph.graph.part import is_part

__all__ = ["afforest_components"]

#: neighbours linked per vertex before sampling (GAP's default)
NEIGHBOUR_ROUNDS = 2
#: vertices sampled to find the most frequent root
SAMPLES = 1024
#: chunks per peer of a forest's vertex range, taken dynamically
_CHUNKS_PER_PEER = 64


@njit(**NUMBA_FLAGS)
def _link(u, v, comp):
    p1 = comp[u]
    p2 = comp[v]
    while p1 != p2:
        high = max(p1, p2)
        low = min(p1, p2)
        p_high = comp[high]
        if p_high == low:  # already hooked there
            break
        if p_high == high and compare_and_swap(comp, high, high, low) == high:
            break
        p1 = comp[comp[high]]
        p2 = comp[low]


@njit(**NUMBA_FLAGS)
def _link_chunks(indptr, indices, comp, cuts, counter, phase, first, last, skip):
    """Link, for every vertex of the chunks ``cuts[i]..cuts[i+1]`` taken from
    ``counter[phase]``, its neighbours ``first..last-1`` (row positions; ``last`` < 0:
    to the end of the row); vertices whose root is ``skip`` are left out."""
    nchunks = cuts.shape[0] - 1
    while True:
        i = fetch_add(counter, phase, 1)
        if i >= nchunks:
            return
        for u in range(cuts[i], cuts[i + 1]):
            if skip >= 0 and comp[u] == skip:
                continue
            a = indptr[u] + first
            e = indptr[u + 1] if last < 0 else min(indptr[u] + last, indptr[u + 1])
            for k in range(a, e):
                _link(u, indices[k], comp)


@njit(**NUMBA_FLAGS)
def _compress_chunks(comp, cuts, counter, phase):
    nchunks = cuts.shape[0] - 1
    while True:
        i = fetch_add(counter, phase, 1)
        if i >= nchunks:
            return
        for v in range(cuts[i], cuts[i + 1]):
            while comp[v] != comp[comp[v]]:
                comp[v] = comp[comp[v]]


@njit(**NUMBA_FLAGS)
def _link_pairs(ids, roots, comp):
    for i in range(ids.shape[0]):
        _link(ids[i], roots[i], comp)


class _Forest:
    """The forest of the peers of one address space (the first to arrive makes it) and
    the counters their chunks are taken from (one per phase)."""

    PHASES = 16

    def __init__(self, n):
        self.n = n
        self._lock = threading.Lock()
        self.comp = None
        self.members = []
        self.counter = np.zeros(self.PHASES, dtype=np.int64)

    def join(self, pid):
        with self._lock:
            if self.comp is None:
                self.comp = np.arange(self.n, dtype=np.int64)
            self.members.append(pid)


def _cuts(indptr, parts):
    """``parts`` + 1 boundaries of ranges of about equal vertices + edges."""
    n = indptr.shape[0] - 1
    work = np.arange(n + 1, dtype=np.float64) + indptr
    cuts = np.searchsorted(work, work[-1] * np.arange(parts + 1) / parts)
    cuts[0], cuts[-1] = 0, n
    return cuts.astype(np.int64)


def _frequent_root(comp, seed):
    """The most frequent root among ``SAMPLES`` vertices drawn from ``seed`` (ties to
    the smaller root): the same on every peer whose forest has the same roots."""
    n = comp.shape[0]
    if n == 0:
        return -1
    sample = comp[np.random.default_rng(seed).integers(0, n, SAMPLES)]
    roots, counts = np.unique(sample, return_counts=True)
    return int(roots[np.argmax(counts)])


def _forest_chunks(graph, peers, members):
    """The chunks of the vertex range of a forest's ``members`` (of ``peers`` peers),
    cut once per graph and kept on it (``Graph.derived``): cutting reads all of
    ``indptr`` twice, 8-10 ms on Kronecker 20, as long as the whole kernel there."""

    def cut():
        indptr = graph.indptr
        if is_part(graph):  # the rows this process holds (global ids)
            lo, hi = graph.lo, graph.hi
        else:
            cuts = _cuts(indptr, peers)
            lo, hi = int(cuts[members[0]]), int(cuts[members[-1] + 1])
        return _cuts(indptr[lo : hi + 1] - indptr[lo], len(members) * _CHUNKS_PER_PEER) + lo

    return graph.derived(("afforest_chunks", peers, tuple(members)), cut)


def _afforest_peer(peer, graph, forest, seed):
    """The peer program on the symmetric ``graph``: afterwards ``forest.comp`` holds
    every vertex's root."""
    indptr, indices = graph.indptr, graph.indices
    forest.join(peer.pid)
    peer.sync()  # everyone has joined: the forest's members are known
    members = sorted(forest.members)
    chunks = _forest_chunks(graph, peer.num_peers, members)
    comp, counter = forest.comp, forest.counter
    merge = len(members) < peer.num_peers
    phase = 0
    for r in range(NEIGHBOUR_ROUNDS):
        _link_chunks(indptr, indices, comp, chunks, counter, phase, r, r + 1, -1)
        peer.sync()
        _compress_chunks(comp, chunks, counter, phase + 1)
        peer.sync()
        phase += 2
    if merge:
        _merge(peer, forest, members)
    skip = _frequent_root(comp, seed)
    peer.sync()  # every member has sampled before anyone links again
    _link_chunks(indptr, indices, comp, chunks, counter, phase, NEIGHBOUR_ROUNDS, -1, skip)
    peer.sync()
    _compress_chunks(comp, chunks, counter, phase + 1)
    peer.sync()
    if merge:
        _merge(peer, forest, members)


def _merge(peer, forest, members):
    """Every forest gets the others' links: its first member sends its non-roots as
    (vertex, root) pairs to every peer outside it, then links what arrived and
    compresses the whole forest (every member waits at the barriers)."""
    comp = forest.comp
    if peer.pid == members[0]:
        ids = np.flatnonzero(comp != np.arange(comp.shape[0]))
        roots = comp[ids]
        for q in range(peer.num_peers):
            if q not in members:
                peer.send(q, (ids, roots))
    peer.sync()
    if peer.pid == members[0]:
        for _, (ids, roots) in peer.messages():
            _link_pairs(ids, roots, comp)
        cuts = np.array([0, comp.shape[0]], dtype=np.int64)
        counter = np.zeros(1, dtype=np.int64)
        _compress_chunks(comp, cuts, counter, 0)
    peer.sync()


def afforest_components(graph, *, threads=None, runtime=None, seed=0):
    """(component per vertex: the smallest internal id in it, the BSP result) of the
    undirected view of ``graph``, by Afforest on ``threads`` peers (or MPI ranks)."""
    from hpgraph.engine.bsp import run_bsp

    sym = graph.symmetrized()
    forest = _Forest(graph.n)
    job = run_bsp(
        _afforest_peer,
        peers=threads,
        args=(sym, forest, seed),
        runtime=runtime,
    )
    return forest.comp, job
