"""Shortest-path betweenness centrality, of vertices and of edges (Brandes 2001; the
variants of Brandes 2008). Given a graph, returns for every vertex v

    c_B(v) = sum over s != v != t of sigma(s, t | v) / sigma(s, t)

(sigma(s, t): number of shortest s-t paths; sigma(s, t | v): those through v), and for
every edge e the same sum with sigma(s, t | e), scaled exactly as NetworkX 3.6
``betweenness_centrality`` / ``edge_betweenness_centrality`` scale them: normalisation
by the number of (s, t) pairs, the halving of undirected sums when not normalised, the
``endpoints`` variant, and the k-source estimate (sums over k sampled sources, inflated
by n / k, sampled sources rescaled apart when endpoints are excluded). Shortest paths
are BFS hops, or Dijkstra distances when weighted (positive weights; equal-distance
paths tie on exact float equality of ``dist[u] + w``, as NetworkX's do).

Multi-edges are collapsed, as NetworkX does on a ``MultiGraph``: parallel edges are one
edge (of their smallest weight), so they do not multiply path counts; an edge's
betweenness is shared equally among the parallel copies of that smallest weight, the
heavier copies get 0. Self-loops lie on no shortest path (0).

Variant: source-parallel Brandes on the peer-level BSP API (``run_bsp``). Each peer
takes every P-th source (strided: neighbouring ids often have similar reach, so the work
balances) and runs, in one nogil numba call per chunk of sources, a forward BFS or
binary-heap Dijkstra that counts sigma, then the dependency accumulation in reverse
settling order. The accumulation pulls from successors (delta[w] = sigma[w] * sum over
successors x of (1 + delta[x]) / sigma[x]), so only out-edges are read and no
predecessor lists are stored. The peers' partial sums are then combined by a
reduce-scatter (peer j sums slice j of every partial, in peer order: the result does not
depend on the runtime). Why not a vertex program: Brandes per source is a sequence of
level-synchronous sweeps forward and back, so a vertex program pays two supersteps per
BFS level per source and a message per edge; sources are independent, so giving each
peer whole sources needs no communication until one final exchange, which is what
NetworKit, igraph and GAP's BC do too.

Memory per peer: 32 B per vertex unweighted (dist int32, sigma, coefficient and result
float64, the BFS stack int32) and 44 B weighted (dist float64, plus a heap and heap
positions, int32); edge betweenness adds 8 B per stored edge. A graph with parallel
edges gets a collapsed copy (12 B per kept edge with weights), built once per graph.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from hpgraph.algorithms._common import check_graph
from hpgraph.algorithms._paths import dijkstra_settle
from hpgraph.algorithms._peer import PeerProgress, resolve_runtime, resolve_weighted
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.bsp import run_bsp
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.views import collapsed_view
from hpgraph.result import VertexResult

__all__ = ["betweenness", "edge_betweenness", "EdgeResult"]

NETWORKX_VERSION = "3.6"  #: the NetworkX scaling this module reproduces (tested on 3.6.1)


# ------------------------------------------------------------------ Brandes kernels
_NO_LEAVES = np.zeros((3, 0), dtype=np.float64)  # _brandes_bfs: no leaves pruned


@njit(**NUMBA_FLAGS)
def _brandes_bfs(indptr, indices, sources, endpoints, dist, sigma, coef, stack, bc, ebc, leaves):
    """Unweighted Brandes from each of ``sources``, adding dependencies into ``bc`` (and
    per-edge ones into ``ebc`` if it is not empty). ``dist`` must be -1 everywhere on
    entry and is left so.

    ``leaves`` (vertex betweenness without endpoints only; shape (3, 0): none) is the
    degree-1 reduction (Baglioni et al., 2012; Sariyuce et al., 2013) for a graph whose
    leaves, vertices of degree 1 whose neighbour has degree 2 or more, were taken out
    (their edges removed, both ways). No shortest path passes through a leaf, so:

    - ``leaves[0, w]``: the leaves that hung from w. As targets they add 1 each to w's
      dependency, and 1 each to the vertices reached.
    - ``leaves[1, s]``: how many searches the search from s stands for; ``leaves[2, s]``
      how many of them are from leaves of s. A search from a leaf of s is s's own,
      one hop longer: every other vertex gets s's dependency, and s one per vertex
      reached past s and that leaf. So s's dependencies are added ``leaves[1, s]``
      times, and s gets ``leaves[2, s] * (reached - 2)``.
    """
    edges = ebc.shape[0] > 0
    one = 1.0 if endpoints else 0.0
    pruned = leaves.shape[1] > 0
    for s in sources:
        times = leaves[1, s] if pruned else 1.0
        dist[s] = 0
        sigma[s] = 1.0
        stack[0] = s
        head, tail = 0, 1
        while head < tail:  # forward: BFS order is the stack, sigma summed over preds
            u = stack[head]
            head += 1
            du1 = dist[u] + 1
            su = sigma[u]
            for k in range(indptr[u], indptr[u + 1]):
                x = indices[k]
                dx = dist[x]
                if dx < 0:
                    dist[x] = du1
                    sigma[x] = su
                    stack[tail] = x
                    tail += 1
                elif dx == du1:
                    sigma[x] += su
        reached = float(tail)
        for i in range(tail - 1, -1, -1):  # backward: successors are done before w
            w = stack[i]
            dw1 = dist[w] + 1
            acc = 0.0
            if edges:
                sw = sigma[w]
                for k in range(indptr[w], indptr[w + 1]):
                    x = indices[k]
                    if dist[x] == dw1:
                        c = coef[x]
                        acc += c
                        ebc[k] += sw * c
            else:
                for k in range(indptr[w], indptr[w + 1]):
                    x = indices[k]
                    if dist[x] == dw1:
                        acc += coef[x]
            delta = sigma[w] * acc
            if pruned:
                delta += leaves[0, w]
                reached += leaves[0, w]
            coef[w] = (1.0 + delta) / sigma[w]
            if w != s:
                bc[w] += (delta + one) * times
        if endpoints:
            bc[s] += tail - 1
        if pruned:
            bc[s] += leaves[2, s] * (reached - 2.0)
        for i in range(tail):
            dist[stack[i]] = -1


@njit(**NUMBA_FLAGS)
def _brandes_dijkstra(
    indptr, indices, weights, sources, endpoints, dist, sigma, coef, stack, heap, pos, bc, ebc
):
    """Weighted Brandes (positive weights). ``dist`` must be inf and ``pos`` -1 everywhere
    on entry; both are left so."""
    edges = ebc.shape[0] > 0
    one = 1.0 if endpoints else 0.0
    for s in sources:
        cnt = dijkstra_settle(indptr, indices, weights, s, dist, sigma, stack, heap, pos)
        for i in range(cnt - 1, -1, -1):
            w = stack[i]
            dw = dist[w]
            sw = sigma[w]
            acc = 0.0
            for k in range(indptr[w], indptr[w + 1]):
                x = indices[k]
                if dist[x] == dw + weights[k]:  # the same sum the forward pass compared
                    c = coef[x]
                    acc += c
                    if edges:
                        ebc[k] += sw * c
            delta = sw * acc
            coef[w] = (1.0 + delta) / sw
            if w != s:
                bc[w] += delta + one
        if endpoints:
            bc[s] += cnt - 1
        for i in range(cnt):
            dist[stack[i]] = np.inf
            pos[stack[i]] = -1


# ------------------------------------------------------------------ edge output
@njit(**NUMBA_FLAGS)
def _edge_output(indptr, indices, weights, has_w, cptr, cidx, val, directed):
    """Per stored edge of the input (an undirected edge once, from its smaller end):
    (source, target, value). An undirected edge's value adds both stored directions; a
    group of parallel edges shares its value among the copies of smallest weight."""
    n = indptr.shape[0] - 1
    cnt = 0
    for u in range(n):
        for k in range(indptr[u], indptr[u + 1]):
            if directed or u <= indices[k]:
                cnt += 1
    src = np.empty(cnt, dtype=np.int64)
    dst = np.empty(cnt, dtype=np.int64)
    out = np.empty(cnt, dtype=np.float64)
    j = 0
    for u in range(n):
        c = cptr[u]
        k = indptr[u]
        hi = indptr[u + 1]
        while k < hi:  # one group of parallel edges u -> t per collapsed edge c
            t = indices[k]
            end = k + 1
            while end < hi and indices[end] == t:
                end += 1
            if directed or u <= t:
                total = val[c]
                if not directed and u != t:  # add the stored direction t -> u
                    lo, up = cptr[t], cptr[t + 1]
                    while lo < up:  # binary search for u in t's sorted row
                        mid = (lo + up) >> 1
                        if cidx[mid] < u:
                            lo = mid + 1
                        else:
                            up = mid
                    total += val[lo]
                wmin = np.inf
                copies = end - k
                if has_w:
                    for e in range(k, end):
                        wmin = min(wmin, weights[e])
                    copies = 0
                    for e in range(k, end):
                        if weights[e] == wmin:
                            copies += 1
                for e in range(k, end):
                    src[j] = u
                    dst[j] = t
                    out[j] = total / copies if (not has_w or weights[e] == wmin) else 0.0
                    j += 1
            k = end
            c += 1
    return src, dst, out


# ------------------------------------------------------------------ the BSP program
def _brandes_peer(peer, csr, sources, endpoints, want_edges, progress):
    """Brandes from this peer's share of ``sources``, then the reduce-scatter of the
    partial sums; returns (offset, summed slice)."""
    indptr, indices, weights = csr
    n = indptr.shape[0] - 1
    mine = sources[peer.pid :: peer.num_peers]
    sigma = np.empty(n, dtype=np.float64)
    coef = np.empty(n, dtype=np.float64)
    stack = np.empty(n, dtype=indices.dtype)
    bc = np.zeros(n, dtype=np.float64)
    ebc = np.zeros(indices.shape[0] if want_edges else 0, dtype=np.float64)
    if weights.shape[0]:
        dist = np.full(n, np.inf)
        heap = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
        pos = np.full(n, -1, dtype=heap.dtype)

        def kernel(chunk):
            _brandes_dijkstra(
                indptr, indices, weights, chunk, endpoints, dist, sigma, coef, stack, heap,
                pos, bc, ebc,
            )  # fmt: skip
    else:
        dist = np.full(n, -1, dtype=np.int32)

        def kernel(chunk):
            _brandes_bfs(
                indptr, indices, chunk, endpoints, dist, sigma, coef, stack, bc, ebc, _NO_LEAVES
            )

    bar = PeerProgress(len(mine), peer.num_peers) if progress and peer.pid == 0 else None
    step = max(1, -(-len(mine) // 100))  # ~100 calls: progress, no per-source Python
    try:
        for lo in range(0, len(mine), step):
            kernel(mine[lo : lo + step])
            if bar is not None:
                bar.advance(len(mine[lo : lo + step]))
    finally:
        if bar is not None:
            bar.close()
    return reduce_scatter(peer, ebc if want_edges else bc)


def reduce_scatter(peer, partial):
    """Sum every peer's ``partial`` (same length on all): peer j gets slice j of each and
    adds them in peer order; returns (offset of the slice, its sum)."""
    size, p = partial.shape[0], peer.num_peers
    bounds = [size * j // p for j in range(p + 1)]
    for j in range(p):
        peer.send(j, partial[bounds[j] : bounds[j + 1]])
    peer.sync()
    acc = np.zeros(bounds[peer.pid + 1] - bounds[peer.pid], dtype=partial.dtype)
    for _, part in sorted(peer.messages(), key=lambda m: m[0]):
        acc += part
    return bounds[peer.pid], acc


def gather_slices(results, size):
    out = np.empty(size, dtype=np.float64)
    for lo, part in results:
        out[lo : lo + part.shape[0]] = part
    return out


# ------------------------------------------------------------------ front end
def _sources(graph, k, seed, sources):
    """(sorted internal source ids, k for the rescaling or None when exact)."""
    n = graph.n
    if k is not None and sources is not None:
        raise InvalidArgumentError("give k (sampled sources) or sources, not both")
    if sources is not None:
        src = np.array([graph.vertex_index(s) for s in sources], dtype=np.int64)
        if src.size == 0:
            raise InvalidArgumentError("sources is empty; give at least one source vertex")
        uniq = np.unique(src)
        if uniq.size != src.size:
            raise InvalidArgumentError("sources lists a vertex more than once")
        return uniq, (None if uniq.size == n else int(uniq.size))
    if k is None:
        return np.arange(n, dtype=np.int64), None
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 1 <= k <= n:
        raise InvalidArgumentError(f"k must be an integer in 1..{n} (the vertex count), got {k!r}")
    if k == n:
        return np.arange(n, dtype=np.int64), None
    rng = np.random.default_rng(seed)
    return np.sort(rng.choice(n, size=int(k), replace=False)).astype(np.int64), int(k)


def _rescale(values, n, *, normalized, directed, endpoints, k, sources):
    """NetworkX 3.6's ``_rescale``, step for step (the same float operations)."""
    big_n = n if endpoints else n - 1
    if big_n < 2:
        return values
    ks = big_n if k is None else k
    if k is None or endpoints:
        if normalized:
            scale = 1 / (ks * (big_n - 1))
        else:
            scale = big_n / (ks * (1 if directed else 2))
        if scale != 1:
            values *= scale
        return values
    corr = 1 if directed else 2
    if normalized:
        s_src = 1 / ((ks - 1) * (big_n - 1)) if ks > 1 else math.nan
        s_other = 1 / (ks * (big_n - 1))
    else:
        s_src = big_n / ((ks - 1) * corr) if ks > 1 else math.nan
        s_other = big_n / (ks * corr)
    is_src = np.zeros(n, dtype=bool)
    is_src[sources] = True
    values *= np.where(is_src, s_src, s_other)
    return values


def _run(graph, k, seed, sources, weighted, endpoints, threads, runtime, progress, edges):
    what = "edge_betweenness" if edges else "betweenness"
    check_graph(graph)
    runtime, threads = resolve_runtime(runtime, threads)
    use_w = resolve_weighted(graph, weighted, what, positive=True)
    srcs, kk = _sources(graph, k, seed, sources)
    csr = collapsed_view(graph, weighted=use_w)
    size = csr[1].shape[0] if edges else graph.n
    meta = {
        "sources": int(srcs.size),
        "k": kk,
        "weighted": use_w,
        "networkx_scaling": NETWORKX_VERSION,
    }
    if graph.n == 0:
        return csr, np.zeros(0), srcs, kk, meta, None
    res = run_bsp(
        _brandes_peer,
        peers=threads,
        args=(csr, srcs, bool(endpoints), edges, bool(progress)),
        runtime=runtime,
    )
    meta["peers"] = len(res.results)
    return csr, gather_slices(res.results, size), srcs, kk, meta, res.stats


def betweenness(
    graph,
    *,
    k=None,
    seed=0,
    sources=None,
    normalized=True,
    weighted=None,
    endpoints=False,
    threads=None,
    runtime=None,
    progress=False,
):
    """Betweenness centrality of every vertex (column ``betweenness``, float64).

    Exact (Brandes) when ``k`` is None; otherwise the estimate from ``k`` sources drawn
    without replacement by ``numpy.random.default_rng(seed)``; or from the explicit
    ``sources`` (input ids), scaled as NetworkX scales a k-sample of those sources (with
    ``sources`` = the k vertices NetworkX samples, the results agree). ``weighted=None``
    uses the weights when the graph has them (they must be positive). Values and scaling
    match NetworkX 3.6 ``betweenness_centrality(G, k, normalized, weight, endpoints)``
    on a ``MultiGraph``/``MultiDiGraph`` (parallel edges collapsed, see the module
    docstring). ``threads`` local peers, or one per rank with ``runtime="mpi"``.
    """
    _, raw, srcs, kk, meta, stats = _run(
        graph, k, seed, sources, weighted, endpoints, threads, runtime, progress, False
    )
    bc = _rescale(
        raw,
        graph.n,
        normalized=normalized,
        directed=graph.directed,
        endpoints=endpoints,
        k=kk,
        sources=srcs,
    )
    meta.update(normalized=bool(normalized), endpoints=bool(endpoints))
    return VertexResult("betweenness", graph, {"betweenness": bc}, stats=stats, meta=meta)


def edge_betweenness(
    graph,
    *,
    k=None,
    seed=0,
    sources=None,
    normalized=True,
    weighted=None,
    threads=None,
    runtime=None,
    progress=False,
):
    """Betweenness centrality of every edge: an :class:`EdgeResult` with one row per
    stored edge (an undirected edge once, as (smaller id, larger id) internally;
    parallel edges one row each). Options as in :func:`betweenness`; values and scaling
    match NetworkX 3.6 ``edge_betweenness_centrality`` on a ``MultiGraph`` /
    ``MultiDiGraph`` (a parallel group's value is split among its lightest copies).
    """
    csr, raw, srcs, kk, meta, stats = _run(
        graph, k, seed, sources, weighted, True, threads, runtime, progress, True
    )
    has_w = bool(meta["weighted"])
    w = graph.weights if has_w else np.empty(0, dtype=np.float64)
    src, dst, val = _edge_output(
        graph.indptr, graph.indices, w, has_w, csr[0], csr[1], raw, graph.directed
    )
    # NetworkX rescales edge values with endpoints=True (N = n), whatever was asked
    val = _rescale(
        val,
        graph.n,
        normalized=normalized,
        directed=graph.directed,
        endpoints=True,
        k=kk,
        sources=srcs,
    )
    meta.update(normalized=bool(normalized))
    cols = {"source": src, "target": dst, "betweenness": val}
    return EdgeResult("edge_betweenness", graph, cols, stats=stats, meta=meta)


@dataclass
class EdgeResult:
    """Per-edge results on ``graph``: ``columns`` holds ``source`` and ``target``
    (internal ids) and value columns, one row per edge. ``output_columns()`` reports the
    endpoints in the input's ids (what :func:`hpgraph.io.write_result` writes)."""

    algorithm: str
    graph: Any
    columns: dict[str, np.ndarray]
    stats: Any = None
    meta: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def __len__(self) -> int:
        return int(self.columns["source"].shape[0])

    def output_columns(self) -> dict[str, np.ndarray]:
        ids = self.graph.user_ids()
        out = {}
        for name, col in self.columns.items():
            out[name] = ids[col] if name in ("source", "target") else col
        return out

    def to_dict(self, column: str = "betweenness") -> dict:
        """``{(source, target): value}`` in the input's ids; parallel edges share one key,
        which holds the sum over the copies (the value of the pair, as on a simple
        graph)."""
        cols = self.output_columns()
        out: dict = {}
        keys = zip(cols["source"].tolist(), cols["target"].tolist(), strict=True)
        for key, x in zip(keys, cols[column].tolist(), strict=True):
            out[key] = out.get(key, 0.0) + x
        return out
