"""The hub-grouped view: the graph renumbered so that its high-degree vertices come
first, grouped by the power of two of their out-degree (largest first) and in the
input's order within a group. Degree-based grouping (Faldu, Diamond, Lin and Gratz,
"A closer look at lightweight graph reordering", IISWC 2019).

Why: a pull pass (PageRank's dense supersteps) reads the sender's value once per in-edge,
at an address the in-row gives. On a power-law graph most of those reads go to a few hubs
(on Kronecker 20 the top 1% of the vertices hold 52% of the edge ends), but with the
input's ids (random ones, on a Kronecker graph) the hubs lie all over the value array,
and each cache line fetched for a hub carries seven cold neighbours. Grouped, the hubs'
values share cache lines and stay cached. Within a group the input's order is kept, so a
graph whose ids already have locality keeps most of it (a full sort by degree would
scatter it). Each renumbered row is sorted, so a row's hub reads come first and
together.

Built in one pass over the input's rows in their order (sequential reads; each row is
written where it goes), threads taking row ranges of about equal edges: a row's
neighbours are renamed (one read of a packed group and number, prefetched ahead) and
counted by group, then scattered group by group; the groups
are ordered and, when the input's rows are sorted, every group's part is already sorted
(the renaming keeps the input's order within a group), so no comparison sort runs
(rows of up to 16 entries, and unsorted input rows, are sorted directly).

Cost, cached on the graph (:meth:`~hpgraph.graph.csr.Graph.derived`): 8 B per vertex
(``order`` and its inverse ``numbers``) + the renumbered CSR, 8 B per vertex + 4 B per
stored edge (12 with weights), twice for a directed graph (out- and in-rows). Kernels
whose work does not depend on the ids' values (PageRank, SSSP) run on it and map their
results back (:mod:`hpgraph.algorithms._order`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from hpgraph.config import DEFAULT_THREADS, HUB_ORDER_MIN_VERTICES, NUMBA_FLAGS
from hpgraph.engine.atomics import prefetch
from hpgraph.graph.build import edge_ranges, on_ranges

__all__ = ["HubView", "hub_view", "hub_numbered", "is_hub_grouped", "is_skewed", "hub_groups"]

#: rows of up to this many entries are sorted by insertion as they are renamed
_SMALL_ROW = 16
#: the renaming asks for the code of the neighbour this many entries ahead (random reads
#: whose addresses the hardware cannot guess: 2.5-3x faster on Kronecker 20)
_AHEAD = 64
#: a vertex's code: its group above this bit, its number below
_SHIFT = np.uint64(58)
_LOW = np.uint64((1 << 58) - 1)


@njit(**NUMBA_FLAGS)
def hub_groups(degree):
    """Group of each vertex: floor(log2(largest degree)) - floor(log2(degree)), so the
    largest degrees form group 0; degree 0 joins degree 1 (uint8)."""
    n = degree.shape[0]
    group = np.empty(n, dtype=np.uint8)
    top = 0
    for v in range(n):
        d = degree[v]
        b = 0
        while d > 1:
            d >>= 1
            b += 1
        group[v] = b
        top = max(top, b)
    for v in range(n):
        group[v] = top - group[v]
    return group


@njit(**NUMBA_FLAGS)
def _order(group):
    """(order, code): a stable counting sort of the vertices by group; ``order[i]`` is
    the vertex numbered i (int64) and ``code[v]`` is ``group << 58 | number of v``, so one
    read gives both (uint64)."""
    n = group.shape[0]
    start = np.zeros(66, dtype=np.int64)
    for v in range(n):
        start[group[v] + 1] += 1
    for b in range(65):
        start[b + 1] += start[b]
    order = np.empty(n, dtype=np.int64)
    code = np.empty(n, dtype=np.uint64)
    for v in range(n):
        i = start[group[v]]
        start[group[v]] += 1
        order[i] = v
        code[v] = (np.uint64(group[v]) << _SHIFT) | np.uint64(i)
    return order, code


@njit(**NUMBA_FLAGS)
def _renumber_rows(ip, ix, w, has_w, code, groups, nip, nix, nw, lo, hi):
    """Input rows [lo, hi) into the renumbered CSR: input row o becomes row ``code[o]``'s
    number, every neighbour renamed, sorted (equal entries in the input's order). Read in
    the input's order (sequential); the rows are written where they belong."""
    start = np.zeros(groups + 1, dtype=np.int64)
    width = 0
    for o in range(lo, hi):
        width = max(width, ip[o + 1] - ip[o])
    scratch = np.empty(width, dtype=np.uint64)
    low = _LOW
    m = ix.shape[0]
    for o in range(lo, hi):
        a, b = ip[o], ip[o + 1]
        base = nip[code[o] & low]
        if b - a <= _SMALL_ROW:
            for k in range(a, b):
                if k + _AHEAD < m:
                    prefetch(code, np.uintp(ix[k + _AHEAD]))
                x = code[ix[k]] & low
                wk = w[k] if has_w else 0.0
                j = base + (k - a)
                while j > base and nix[j - 1] > x:
                    nix[j] = nix[j - 1]
                    if has_w:
                        nw[j] = nw[j - 1]
                    j -= 1
                nix[j] = x
                if has_w:
                    nw[j] = wk
            continue
        start[:] = 0
        for k in range(a, b):
            if k + _AHEAD < m:
                prefetch(code, np.uintp(ix[k + _AHEAD]))
            c = code[ix[k]]
            scratch[k - a] = c
            start[(c >> _SHIFT) + np.uint64(1)] += 1
        start[0] = base
        for g in range(groups):
            start[g + 1] += start[g]
        for k in range(a, b):
            c = scratch[k - a]
            g = c >> _SHIFT
            j = start[g]
            start[g] = j + 1
            nix[j] = c & low
            if has_w:
                nw[j] = w[k]
        e = base + (b - a)
        for j in range(base + 1, e):
            if nix[j] < nix[j - 1]:  # the input's row was not sorted
                p = np.argsort(nix[base:e], kind="mergesort")
                nix[base:e] = nix[base:e][p]
                if has_w:
                    nw[base:e] = nw[base:e][p]
                break


@njit(**NUMBA_FLAGS)
def _row_offsets(ip, order):
    """Offsets of the renumbered rows: row i has the length of input row ``order[i]``."""
    n = order.shape[0]
    nip = np.empty(n + 1, dtype=np.int64)
    nip[0] = 0
    for i in range(n):
        o = order[i]
        nip[i + 1] = nip[i] + ip[o + 1] - ip[o]
    return nip


def _renumbered(ip, ix, w, order, code, groups, threads):
    """(indptr, indices, weights or None) of the rows of (ip, ix, w) renumbered."""
    nip = _row_offsets(ip, order)
    nix = np.empty_like(ix)
    has_w = w is not None
    nw = np.empty(ix.shape[0] if has_w else 0, dtype=np.float64)
    w_in = w if has_w else np.empty(0, dtype=np.float64)
    args = (ip, ix, w_in, has_w, code, groups, nip, nix, nw)
    on_ranges(edge_ranges(ip, threads or DEFAULT_THREADS), _renumber_rows, *args)
    return nip, nix, (nw if has_w else None)


def is_skewed(graph) -> bool:
    """Whether the hub-grouped view pays on ``graph``: more than
    :data:`~hpgraph.config.HUB_ORDER_MIN_VERTICES` vertices (below that the value array
    stays in cache whatever the order) and the top 1% of the vertices by out-degree hold
    at least 10% of the stored edges (Kronecker 20: 52%; uniform 1M/16M: 1.5%, where the
    grouping only shuffles)."""
    n = graph.n
    if n <= HUB_ORDER_MIN_VERTICES or graph.num_stored_edges == 0:
        return False
    deg = graph.out_degree()
    top = n // 100
    heavy = np.partition(deg, n - top)[n - top :].sum()
    return bool(heavy >= 0.1 * graph.num_stored_edges)


class HubView(NamedTuple):
    """The hub-grouped view of a graph: ``order[i]`` is the vertex of the graph numbered
    i, ``numbers[v]`` the number of vertex v (both in the graph's index type), ``graph``
    the renumbered :class:`~hpgraph.graph.csr.Graph` (same directedness and weights, no
    ids)."""

    order: np.ndarray
    numbers: np.ndarray
    graph: object


def _build_view(graph, threads) -> HubView:
    from hpgraph.graph.csr import Graph

    group = hub_groups(graph.out_degree())
    groups = int(group.max(initial=0)) + 1
    order, code = _order(group)
    del group
    ip, ix, w = _renumbered(graph.indptr, graph.indices, graph.weights, order, code,
                            groups, threads)  # fmt: skip
    view = Graph(ip, ix, w, directed=graph.directed, name=graph.name)
    if graph.directed:
        rows = _renumbered(*graph.in_csr(), order, code, groups, threads)
        for a in rows:
            if a is not None:
                a.flags.writeable = False
        view._in = rows
    numbers = (code & _LOW).astype(graph.indices.dtype)
    del code
    order = order.astype(graph.indices.dtype)
    for a in (order, numbers):
        a.flags.writeable = False
    return HubView(order, numbers, view)


def hub_view(graph, threads=None) -> HubView:
    """The :class:`HubView` of ``graph``, cached on it; built on ``threads`` threads the
    first time."""
    return graph.derived("views.hub", lambda: _build_view(graph, threads))


def is_hub_grouped(graph) -> bool:
    """Whether ``graph`` is numbered hubs first already (its out-degrees' powers of two
    never grow along the numbers), so that its hub-grouped view would give every vertex
    its own number: kernels run on the graph as it is. Cached on the graph."""

    def grouped():
        group = hub_groups(graph.out_degree())
        return bool(np.all(group[1:] >= group[:-1]))

    return graph.derived("views.hub.grouped", grouped)


def hub_numbered(graph, threads=None):
    """``graph`` numbered hubs first: a new :class:`~hpgraph.graph.csr.Graph` whose vertex
    i is the hub-grouped view's (rows renamed and sorted) and whose ``ids`` name it by
    ``graph``'s id, so every result reads as on ``graph`` (rows in the new order). Unlike
    the view, nothing is cached on ``graph``: once it is dropped, one copy of the edges is
    held, plus the ids (8 B per vertex). ``graph`` itself when it is numbered so already
    (:func:`is_hub_grouped`). Built on ``threads`` threads."""
    from hpgraph.graph.csr import Graph

    if is_hub_grouped(graph):
        return graph
    view = graph._derived.get("views.hub") or _build_view(graph, threads)
    if graph.ids is None:
        ids = view.order.astype(np.int64)
    else:
        ids = np.asarray(graph.ids)[view.order]
    v = view.graph
    out = Graph(v.indptr, v.indices, v.weights, directed=v.directed, ids=ids, name=graph.name)
    out._in = v._in
    return out
