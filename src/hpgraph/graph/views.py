"""Graph views that several kernels work on, computed once and cached on the graph
(:meth:`hpgraph.graph.csr.Graph.derived`).

- :func:`simple_view`: the undirected simple graph: directions ignored, parallel edges
  merged, self-loops dropped; rows sorted. 8 B per vertex + 4 B per entry (int32 ids).
  BMLPA, the leaders, the community layout and overlapping modularity read it.
- :func:`simple_rows`: the same rows, or with ``both_directions`` each neighbour once per
  direction present (LCC's and CDLP's definitions on directed graphs); uncached, the
  caller caches what it keeps.
- :func:`locality_view`: the simple view renumbered in breadth-first order from the
  largest degree, for kernels whose reads follow the edges (BMLPA).
- The hub-grouped view (:func:`hpgraph.graph.hub_order.hub_view`, its own module): the
  graph as it is, renumbered with the high-degree vertices first (PageRank, SSSP).
- :func:`check_weights`: the weight check of the kernels that need finite, non-negative
  (or positive) weights, naming the first bad edge in the input's ids.
- :func:`collapsed_view`: the graph as it is (directions and self-loops kept) with each
  group of parallel edges collapsed to one, of the group's smallest weight: the graph's
  own arrays when it has none. Betweenness reads it.

The rows are merged from the out- and in-edges of the graph (one pass, no symmetrised
copy), skipping loops and repeats.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.graph.csr import count_self_loops
from hpgraph.graph.part import is_part

__all__ = [
    "simple_view",
    "simple_rows",
    "simple_part",
    "symmetrized_part",
    "locality_view",
    "rows_in_order",
    "collapsed_view",
    "check_weights",
]


@njit(**NUMBA_FLAGS, inline="always")
def _next(ix, p, e, v, x):
    """First position >= p whose target is neither x (a duplicate) nor v (a loop)."""
    while p < e and (ix[p] == x or ix[p] == v):
        p += 1
    return p


@njit(**NUMBA_FLAGS, inline="always")
def _union_step(ixa, pa, ea, ixb, pb, eb, v, big):
    """One step of the merge of two sorted rows, skipping loops and duplicates:
    (neighbour, directions 1 or 2, new pa, new pb)."""
    x = ixa[pa] if pa < ea else big
    y = ixb[pb] if pb < eb else big
    u = min(x, y)
    m = (x == u) + (y == u)
    if x == u:
        pa = _next(ixa, pa + 1, ea, v, u)
    if y == u:
        pb = _next(ixb, pb + 1, eb, v, u)
    return u, m, pa, pb


@njit(**NUMBA_FLAGS)
def _simple_degrees(ipa, ixa, ipb, ixb, both, lo, hi, out):
    """out[v - lo] = |N(v)| for v in [lo, hi) (``both``: counted with directions, 1 or 2
    per neighbour), the union of row v of A and row v of B without v and duplicates."""
    big = ipa.shape[0]
    for v in range(lo, hi):
        ea, eb = ipa[v + 1], ipb[v + 1]
        pa = _next(ixa, ipa[v], ea, v, -1)
        pb = _next(ixb, ipb[v], eb, v, -1)
        c = 0
        while pa < ea or pb < eb:
            u, m, pa, pb = _union_step(ixa, pa, ea, ixb, pb, eb, v, big)
            c += m if both else 1
        out[v - lo] = c


@njit(**NUMBA_FLAGS)
def _simple_fill(ipa, ixa, ipb, ixb, both, lo, hi, indptr, indices):
    """Rows [lo, hi) of the simple view (``indptr`` from row lo): each neighbour once
    (``both``: once per direction)."""
    big = ipa.shape[0]
    for v in range(lo, hi):
        ea, eb = ipa[v + 1], ipb[v + 1]
        pa = _next(ixa, ipa[v], ea, v, -1)
        pb = _next(ixb, ipb[v], eb, v, -1)
        k = indptr[v - lo]
        while pa < ea or pb < eb:
            u, m, pa, pb = _union_step(ixa, pa, ea, ixb, pb, eb, v, big)
            for _ in range(m if both else 1):
                indices[k] = u
                k += 1


def simple_rows(graph, *, both_directions: bool):
    """``(indptr, indices)`` of the simple, loop-free neighbourhoods: row v lists N(v)
    (in- and out-neighbours, v excluded), sorted, each neighbour once, or with
    ``both_directions`` once per direction present (twice for a reciprocal pair).
    8 B per vertex + 4 B per entry; the caller caches it (``graph.derived``)."""
    ipa, ixa = graph.indptr, graph.indices
    ipb, ixb, _ = graph.in_csr() if graph.directed else (ipa, ixa, None)
    both = bool(both_directions and graph.directed)
    lo, hi = (graph.lo, graph.hi) if is_part(graph) else (0, graph.n)
    deg = np.empty(hi - lo, dtype=np.int64)
    _simple_degrees(ipa, ixa, ipb, ixb, both, lo, hi, deg)
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(deg, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=ixa.dtype)
    _simple_fill(ipa, ixa, ipb, ixb, both, lo, hi, indptr, indices)
    return indptr, indices


def simple_part(part, *, both_directions: bool):
    """:func:`simple_rows` of a part's own vertices as a part of the undirected view
    (rows from the part's out- and in-rows; the stored count summed over the part's
    communicator)."""
    _need_comm(part)
    indptr, indices = simple_rows(part, both_directions=both_directions)
    return _undirected_part(part, indptr, indices, None)


def _need_comm(part):
    if part.comm is None:
        from hpgraph.errors import InvalidArgumentError

        raise InvalidArgumentError("a view of a part needs the part's communicator")


def _undirected_part(part, indptr, indices, weights):
    """The undirected part of a view from this rank's rows of it (``indptr`` from 0):
    offsets, stored edges and edges (self-loops once) summed over the part's ranks."""
    from hpgraph.graph.part import PartGraph

    comm = part.comm
    mine = int(indices.shape[0])
    loops = int(comm.allreduce(int(count_self_loops(indptr, indices, part.lo))))
    indptr += int(comm.exscan(mine) or 0)  # the whole view's offsets
    stored = int(comm.allreduce(mine))
    return PartGraph(
        part.n, part.rank_offsets, part.rank, indptr, indices, weights, directed=False,
        stored_edges=stored, edges=(stored - loops) // 2 + loops, ids=part.ids,
        own_ids=part.own_ids, name=part.name, comm=comm,
    )  # fmt: skip


def symmetrized_part(part):
    """A directed part's rows of :meth:`Graph.symmetrized <hpgraph.graph.csr.Graph.
    symmetrized>`: each own row is the merge of its out-row and in-row (a self-loop
    once; on equal targets the out-row's entries first, as ``from_edges`` scatters
    forward edges before reversed ones), weights alongside."""
    _need_comm(part)
    ipb, ixb, wb = part.in_csr()
    lo, hi = part.lo, part.hi
    ipa, ixa, wa = part.indptr, part.indices, part.weights
    has_w = wa is not None
    none = np.empty(0, dtype=np.float64)
    count = np.empty(hi - lo, dtype=np.int64)
    _merge_rows(ipa, ixa, wa if has_w else none, ipb, ixb, wb if has_w else none, lo, hi,
                np.zeros(1, np.int64), np.empty(0, ixa.dtype), none, count, False)  # fmt: skip
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(count, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=ixa.dtype)
    weights = np.empty(int(indptr[-1]) if has_w else 0, dtype=np.float64)
    _merge_rows(ipa, ixa, wa if has_w else none, ipb, ixb, wb if has_w else none, lo, hi,
                indptr, indices, weights, count, True)  # fmt: skip
    return _undirected_part(part, indptr, indices, weights if has_w else None)


@njit(**NUMBA_FLAGS)
def _merge_rows(ipa, ixa, wa, ipb, ixb, wb, lo, hi, indptr, indices, weights, count, fill):
    """Rows [lo, hi): the merge of out-row A and in-row B (B's self-loops skipped); with
    ``fill`` written from ``indptr[v - lo]``, else counted into ``count``."""
    has_w = wa.shape[0] > 0
    for v in range(lo, hi):
        pa, ea = ipa[v], ipa[v + 1]
        pb, eb = ipb[v], ipb[v + 1]
        k = indptr[v - lo] if fill else 0
        c = 0
        while pa < ea or pb < eb:
            if pb < eb and ixb[pb] == v:  # the loop, stored once (from the out-row)
                pb += 1
                continue
            take_a = pb >= eb or (pa < ea and ixa[pa] <= ixb[pb])
            if fill:
                indices[k + c] = ixa[pa] if take_a else ixb[pb]
                if has_w:
                    weights[k + c] = wa[pa] if take_a else wb[pb]
            if take_a:
                pa += 1
            else:
                pb += 1
            c += 1
        count[v - lo] = c


def simple_view(graph):
    """``(indptr, indices)`` of the undirected simple graph (directions ignored, parallel
    edges merged, self-loops dropped; rows sorted), read-only, cached on the graph."""

    def build():
        ip, ix = simple_rows(graph, both_directions=False)
        ip.flags.writeable = False
        ix.flags.writeable = False
        return ip, ix

    return graph.derived("views.simple", build)


@njit(**NUMBA_FLAGS)
def _bfs_renumbered(indptr, indices, first):
    """The graph renumbered in breadth-first order in one pass: from ``first``, then every
    other component from its smallest vertex. Returns ``(order, ptr, idx)``: ``order[i]``
    is the vertex numbered i (int32 new -> old) and row i of (ptr, idx) is its row, each
    neighbour renamed, in the row's own order. When a vertex is taken from the queue
    every neighbour already has its number or gets it there and then, so its renamed row
    is written at once, sequentially (no second pass over the rows, no inverse gather)."""
    n = indptr.shape[0] - 1
    rank = np.full(n, -1, dtype=indices.dtype)
    order = np.empty(n, dtype=np.int32)
    ptr = np.empty(n + 1, dtype=np.int64)
    idx = np.empty(indices.shape[0], dtype=indices.dtype)
    ptr[0] = 0
    head = 0
    tail = 0
    j = 0
    for s in range(-1, n):
        r = first if s < 0 else s
        if n == 0 or rank[r] >= 0:
            continue
        rank[r] = tail
        order[tail] = r
        tail += 1
        while head < tail:
            v = order[head]
            head += 1
            for k in range(indptr[v], indptr[v + 1]):
                u = indices[k]
                if rank[u] < 0:
                    rank[u] = tail
                    order[tail] = u
                    tail += 1
                idx[j] = rank[u]
                j += 1
            ptr[head] = j
    return order, ptr, idx


@njit(**NUMBA_FLAGS)
def rows_in_order(beg, fin, vals, order):
    """CSR whose row i is ``vals[beg[order[i]]:fin[order[i]]]``: (ptr from 0, values)."""
    m = order.shape[0]
    out_ptr = np.zeros(m + 1, dtype=np.int64)
    for i in range(m):
        v = order[i]
        out_ptr[i + 1] = out_ptr[i] + fin[v] - beg[v]
    out = np.empty(out_ptr[m], dtype=vals.dtype)
    for i in range(m):
        v = order[i]
        out[out_ptr[i] : out_ptr[i + 1]] = vals[beg[v] : fin[v]]
    return out_ptr, out


def locality_view(graph):
    """``(order, indptr, indices)``: the simple view with its vertices renumbered in
    breadth-first order from the largest degree (``order[i]`` is the vertex numbered i),
    each row's neighbours kept in the simple view's order; cached on the graph.

    A kernel that reads every neighbour's state (BMLPA's label sets) misses the cache on
    nearly every read with the input's ids (a mention graph's are random); breadth-first
    numbers put a star's leaves next to its centre, a chain in a row and a hub's
    neighbours together. Rows keep the simple view's order, so sums over neighbours run
    in the same order as on the simple view. 4 B per vertex
    (order) + 8 B per vertex + 4 B per stored edge (the renumbered CSR)."""

    def build():
        ip, ix = simple_view(graph)
        n = ip.shape[0] - 1
        first = int(np.argmax(np.diff(ip))) if n else 0
        order, pip, pix = _bfs_renumbered(ip, ix, first)
        for a in (order, pip, pix):
            a.flags.writeable = False
        return order, pip, pix

    return graph.derived("views.locality", build)


# --------------------------------------------------------------------------- rough cores


@njit(**NUMBA_FLAGS)
def _has_parallel(indptr, indices):
    for v in range(indptr.shape[0] - 1):
        for k in range(indptr[v] + 1, indptr[v + 1]):
            if indices[k] == indices[k - 1]:
                return True
    return False


@njit(**NUMBA_FLAGS)
def _collapse(indptr, indices, weights, has_w):
    """One edge per group of parallel edges (rows are sorted, so groups are adjacent),
    with the group's smallest weight."""
    n = indptr.shape[0] - 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    idx = np.empty(indices.shape[0], dtype=indices.dtype)
    w = np.empty(indices.shape[0] if has_w else 0, dtype=np.float64)
    j = 0
    for v in range(n):
        for k in range(indptr[v], indptr[v + 1]):
            if k > indptr[v] and indices[k] == indices[k - 1]:
                if has_w and weights[k] < w[j - 1]:
                    w[j - 1] = weights[k]
                continue
            idx[j] = indices[k]
            if has_w:
                w[j] = weights[k]
            j += 1
        ptr[v + 1] = j
    return ptr, idx[:j].copy(), w[: j if has_w else 0].copy()


def collapsed_view(graph, *, weighted: bool):
    """(indptr, indices, weights or an empty array) with parallel edges collapsed to
    their smallest weight (``weighted``) or to one edge; the graph's own arrays when it
    has none. Cached on the graph."""

    def build():
        w = graph.weights if weighted else np.empty(0, dtype=np.float64)
        if not _has_parallel(graph.indptr, graph.indices):
            return graph.indptr, graph.indices, w
        return _collapse(graph.indptr, graph.indices, w, weighted)

    return graph.derived(("views.collapsed", weighted), build)


def check_weights(graph, what: str, *, positive: bool = False, hint: str = ""):
    """Raise :class:`~hpgraph.errors.InvalidGraphError` naming the first edge whose weight
    is not finite and non-negative (``positive``: not finite and > 0); ``hint`` ends the
    message. A graph without weights passes."""
    from hpgraph.errors import InvalidGraphError, agreed

    part = is_part(graph)
    if part:  # its own rows; every rank raises the first rank's bad edge
        w, indptr, indices, lo = graph.own_weights, graph.own_indptr, graph.own_indices, graph.lo
        indptr = indptr - indptr[0]
    else:
        w, indptr, indices, lo = graph.weights, graph.indptr, graph.indices, 0
    edge = None
    if w is not None and w.size:
        bad = ~np.isfinite(w) | ((w <= 0) if positive else (w < 0))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            u = lo + int(np.searchsorted(indptr, k, side="right") - 1)
            edge = (u, int(indices[k]), float(w[k]))
    if part and graph.comm is not None:  # the first rank's, named by every rank alike
        edge = next((e for e in graph.comm.allgather(edge) if e), None)
    if edge is not None:
        a, b = graph.user_ids()[list(edge[:2])].tolist()  # Python values
        need = "positive" if positive else "non-negative"
        exc = InvalidGraphError(
            f"{what} needs finite, {need} edge weights; edge {a!r} -> {b!r} has weight "
            f"{edge[2]!r}{hint}"
        )
        raise agreed(exc) if part and graph.comm is not None else exc  # printed once
