"""The functions the backend runs for NetworkX. Given a :class:`BackendGraph` and
NetworkX's arguments, returns what NetworkX returns: the same values (PageRank within its
own ``tol``), the same types (Python ints and floats, sets, generators, dicts in
NetworkX's key order where it has one) and the same exceptions.

Each function is called only when :func:`hpgraph.nxbackend.interface.can_run` accepted
its arguments; what depends on the data rather than the arguments (a weight hpgraph's
kernel does not take, such as a zero weight in weighted betweenness) raises
``NotImplementedError``, NetworkX's signal to run its own implementation instead.

Label propagation lives in :mod:`hpgraph.nxbackend.communities`, ForceAtlas2 in
:mod:`hpgraph.nxbackend.layout`.

Kernels: components, betweenness and the triangle family run hpgraph's own kernels
(``hp.wcc``, ``hp.betweenness``, ``hp.edge_betweenness``, ``hp.lcc``); BFS, Dijkstra and
PageRank run the order-keeping kernels of :mod:`hpgraph.nxbackend._kernels`.
"""

from __future__ import annotations

import gc
import math

import networkx as nx
import numpy as np

import hpgraph as hp
from hpgraph.graph.build import build_csr
from hpgraph.nxbackend import _kernels as K
from hpgraph.nxbackend.communities import asyn_lpa_communities, label_propagation_communities
from hpgraph.nxbackend.graph import BackendGraph
from hpgraph.nxbackend.layout import forceatlas2_layout

__all__ = [
    "pagerank",
    "bfs_edges",
    "bfs_tree",
    "single_source_shortest_path_length",
    "all_pairs_shortest_path_length",
    "shortest_path_length",
    "single_source_dijkstra_path_length",
    "connected_components",
    "number_connected_components",
    "weakly_connected_components",
    "number_weakly_connected_components",
    "betweenness_centrality",
    "edge_betweenness_centrality",
    "clustering",
    "triangles",
    "transitivity",
    "average_clustering",
    "label_propagation_communities",
    "asyn_lpa_communities",
    "forceatlas2_layout",
]


def _edge_values(G: BackendGraph, weight):
    ev = G.values(weight)
    if ev is None:
        raise NotImplementedError(f"edge attribute {weight!r} was not converted to hpgraph")
    return ev


def _levels(limit, n) -> int:
    """Deepest level NetworkX reaches with ``cutoff``/``depth_limit`` (it expands level
    ``l`` while ``limit > l``), ``n`` when unlimited."""
    if limit is None or limit >= n:
        return n
    return max(0, math.ceil(limit))


# ------------------------------------------------------------------ PageRank
def _transition(G, weight):
    """In-edges of NetworkX's PageRank matrix, built once per weight and cached: (indptr,
    sources, coefficient A[u, v] / S[u], row sums S). ``A`` is ``to_scipy_sparse_array``:
    parallel edges summed (counted, without a weight), a self-loop once."""
    key = ("pagerank", weight)
    if key not in G._hp:
        n = G.n
        if weight is not None:
            w = _edge_values(G, weight).total
        elif G.multiplicity is not None:
            w = G.multiplicity.astype(np.float64)
        else:
            w = np.ones(G.indices.shape[0])
        rows = np.repeat(np.arange(n, dtype=G.indices.dtype), np.diff(G.indptr))
        row_sum = np.bincount(rows, weights=w, minlength=n).astype(np.float64)
        inv = np.zeros(n)
        nz = row_sum != 0
        inv[nz] = 1.0 / row_sum[nz]
        ip, src, coef = build_csr(
            G.indices, rows, w * inv[rows], n, G.indices.dtype, undirected=False, threads=G.threads
        )
        G._hp[key] = (ip, src, coef, row_sum)
    return G._hp[key]


def pagerank(
    G,
    alpha=0.85,
    personalization=None,
    max_iter=100,
    tol=1.0e-6,
    nstart=None,
    weight="weight",
    dangling=None,
):
    """NetworkX's ``_pagerank_scipy``: the same transition matrix (weights of parallel
    edges summed, rows scaled by the reciprocal of their sums), start vector,
    personalisation and dangling vectors, update and stopping rule (L1 change < n*tol)."""
    n = G.n
    if n == 0:
        return {}
    nodes = G.nodes
    ip, src, coef, row_sum = _transition(G, weight)
    if nstart is None:
        x = np.repeat(1.0 / n, n)
    else:
        x = np.array([nstart.get(v, 0) for v in nodes], dtype=float)
        x /= x.sum()
    if personalization is None:
        p = np.repeat(1.0 / n, n)
    else:
        p = np.array([personalization.get(v, 0) for v in nodes], dtype=float)
        if p.sum() == 0:
            raise ZeroDivisionError
        p /= p.sum()
    if dangling is None:
        dw = p
    else:
        dw = np.array([dangling.get(v, 0) for v in nodes], dtype=float)
        dw /= dw.sum()
    is_dangling = np.flatnonzero(row_sum == 0)
    x, converged = K.pagerank_iterate(
        (ip, src), coef, x, float(alpha), is_dangling, dw, p, int(max_iter), float(tol), G.threads
    )
    if not converged:
        raise nx.PowerIterationFailedConvergence(max_iter)
    return dict(zip(nodes, x.tolist(), strict=True))


# ------------------------------------------------------------------ BFS family
def _bfs(G, source, limit):
    return K.bfs_order(G.indptr, G.indices, G.node_index(source), _levels(limit, G.n))


def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """NetworkX's edge sequence of ``generic_bfs_edges`` (a generator, like NetworkX's:
    an unknown source raises when iterated)."""
    if source not in G:
        raise nx.NetworkXError(f"The node {source} is not in the graph.")
    order, parent, _ = _bfs(G, source, depth_limit)
    nodes = G.nodes
    for u, v in zip(parent[1:].tolist(), order[1:].tolist(), strict=True):
        yield nodes[u], nodes[v]


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """The BFS tree as ``nx.DiGraph``, built as NetworkX builds it."""
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(bfs_edges(G, source, reverse, depth_limit, sort_neighbors))
    return T


def _lengths(G, s, cutoff):
    order, _, depth = K.bfs_order(G.indptr, G.indices, s, _levels(cutoff, G.n))
    nodes = G.nodes
    return dict(zip([nodes[v] for v in order.tolist()], depth[order].tolist(), strict=True))


def single_source_shortest_path_length(G, source, cutoff=None):
    """Hops from ``source``, keys in NetworkX's discovery order."""
    if source not in G:
        raise nx.NodeNotFound(f"Source {source} is not in G")
    return _lengths(G, G.node_index(source), cutoff)


def all_pairs_shortest_path_length(G, cutoff=None):
    """A generator of ``(node, lengths)`` in node order, as NetworkX's."""
    for i, v in enumerate(G.nodes):
        yield v, _lengths(G, i, cutoff)


def _dijkstra(G, source, weight, cutoff=None, target=-1):
    if weight is None:  # NetworkX's Dijkstra then reads every edge as 1 (data.get(None, 1))
        least, integral = np.ones(G.indices.shape[0]), True
    else:
        ev = _edge_values(G, weight)
        least, integral = ev.least, ev.integral
    cut = math.inf if cutoff is None else float(cutoff)
    order, dist, status = K.dijkstra_order(
        G.indptr, G.indices, least, G.node_index(source), cut, target
    )
    if status == K.CONTRADICTION:
        raise ValueError("Contradictory paths found:", "negative weights?")
    d = dist.tolist()
    if integral:
        d = [int(x) for x in d]
    d[0] = 0  # NetworkX's source distance is the int 0 it pushed
    nodes = G.nodes
    return dict(zip([nodes[v] for v in order.tolist()], d, strict=True))


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """Weighted distances from ``source``, keys in NetworkX's settling order."""
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    return _dijkstra(G, source, weight, cutoff)


def _all_pairs_dijkstra(G, weight):
    for v in G.nodes:
        yield v, _dijkstra(G, v, weight)


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """NetworkX's ``shortest_path_length`` for ``method="dijkstra"`` (and unweighted),
    every combination of ``source`` and ``target`` (target alone on undirected graphs)."""
    if source is None and target is None:
        if weight is None:
            return all_pairs_shortest_path_length(G)
        return _all_pairs_dijkstra(G, weight)
    if source is None:  # lengths to target; can_run allows this on undirected graphs only
        if weight is None:
            return single_source_shortest_path_length(G, target)
        return single_source_dijkstra_path_length(G, target, weight=weight)
    if target is None:
        if weight is None:
            return single_source_shortest_path_length(G, source)
        return single_source_dijkstra_path_length(G, source, weight=weight)
    if weight is None:
        if source not in G:
            raise nx.NodeNotFound(f"Source {source} is not in G")
        if target not in G:
            raise nx.NodeNotFound(f"Target {target} is not in G")
        _, _, depth = _bfs(G, source, None)
        d = int(depth[G.node_index(target)])
        if d < 0:
            raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
        return d
    if source not in G:
        raise nx.NodeNotFound(f"Node {source} not found in graph")
    if source == target:
        return 0
    t = G.node_index(target) if target in G else -1
    lengths = _dijkstra(G, source, weight, target=t)
    try:
        return lengths[target]
    except KeyError as err:
        raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}") from err


# ------------------------------------------------------------------ components
def _component_sets(G):
    label = hp.wcc(G.hp_graph(), threads=G.threads)["component"]  # smallest member first
    _, rank = np.unique(label, return_inverse=True)
    # Hundreds of thousands of new lists and sets would set off the cyclic garbage
    # collector over and over, and each full pass walks the whole NetworkX graph (seconds
    # at 1M vertices): none of these objects can form a cycle, so it waits.
    paused = gc.isenabled()
    gc.disable()
    try:
        buckets = [[] for _ in range(int(rank.max(initial=-1)) + 1)]
        for v, r in zip(G.nodes, rank.tolist(), strict=True):
            buckets[r].append(v)
        sets = [set(b) for b in buckets]
        del buckets
    finally:
        if paused:
            gc.enable()
    return (c for c in sets)


def _component_count(G) -> int:
    label = hp.wcc(G.hp_graph(), threads=G.threads)["component"]
    return int(np.count_nonzero(label == np.arange(G.n)))


def connected_components(G):
    """A generator of vertex sets, in NetworkX's order (by each one's first vertex)."""
    return _component_sets(G)


def weakly_connected_components(G):
    """A generator of vertex sets, in NetworkX's order (by each one's first vertex)."""
    return _component_sets(G)


def number_connected_components(G):
    return _component_count(G)


def number_weakly_connected_components(G):
    return _component_count(G)


# ------------------------------------------------------------------ betweenness
def _sources(G, k, seed):
    """NetworkX's sampled sources (internal ids), or None for all; draws exactly as
    NetworkX does: ``seed.sample(list(G.nodes()), k)``."""
    if k is None:
        return None
    sample = seed.sample(list(G.nodes), k)
    return [G.node_index(v) for v in sample]


def _weighted_graph(G, weight):
    if weight is None:
        return G.hp_graph(), False
    ev = _edge_values(G, weight)
    w = ev.least
    if w.size and not (np.all(np.isfinite(w)) and w.min() > 0):
        raise NotImplementedError("hpgraph's betweenness takes finite positive weights only")
    return G.hp_graph(weight, how="least"), True


def betweenness_centrality(G, k=None, normalized=True, weight=None, endpoints=False, seed=None):
    """``hp.betweenness`` on NetworkX's sampled sources, scaled as NetworkX scales."""
    if k == G.n:
        k = None
    sources = _sources(G, k, seed)
    g, weighted = _weighted_graph(G, weight)
    if G.n == 0:
        return {}
    r = hp.betweenness(
        g,
        sources=sources,
        normalized=normalized,
        weighted=weighted,
        endpoints=endpoints,
        threads=G.threads,
    )
    return dict(zip(G.nodes, r["betweenness"].tolist(), strict=True))


def edge_betweenness_centrality(G, k=None, normalized=True, weight=None, seed=None):
    """``hp.edge_betweenness`` on NetworkX's sampled sources; keys oriented as
    ``G.edges()`` yields them (an undirected edge from its earlier vertex)."""
    sources = _sources(G, k, seed)
    g, weighted = _weighted_graph(G, weight)
    if G.indices.shape[0] == 0:
        return {}
    r = hp.edge_betweenness(
        g, sources=sources, normalized=normalized, weighted=weighted, threads=G.threads
    )
    nodes = G.nodes
    src = r["source"].tolist()
    dst = r["target"].tolist()
    keys = [(nodes[u], nodes[v]) for u, v in zip(src, dst, strict=True)]
    return dict(zip(keys, r["betweenness"].tolist(), strict=True))


# ------------------------------------------------------------------ triangles
def _triangles(G):
    """(triangles, simple degree) per vertex, undirected simple view."""
    g = G.hp_graph()
    tri = hp.lcc(g, threads=G.threads)["triangles"]
    return tri, K.simple_degree(g.indptr, g.indices)


def _no_multigraph(G):
    """NetworkX's ``_triangles_and_degree_iter`` is not implemented for multigraphs."""
    if G.multigraph:
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")


def _clustering_values(G):
    _no_multigraph(G)
    tri, deg = _triangles(G)
    t = 2 * tri
    pairs = deg * (deg - 1)
    c = np.zeros(G.n)
    np.divide(t, pairs, out=c, where=t > 0)
    vals = c.tolist()
    for i in np.flatnonzero(t == 0).tolist():
        vals[i] = 0  # NetworkX's ``0 if t == 0``: the int 0
    return vals


def triangles(G, nodes=None):
    """Triangles through each vertex (Python ints), or through ``nodes`` if a vertex."""
    if nodes is not None:
        _no_multigraph(G)
    tri, _ = _triangles(G)
    if nodes is not None:
        return int(tri[G.node_index(nodes)])
    return dict(zip(G.nodes, tri.tolist(), strict=True))


def clustering(G, nodes=None, weight=None):
    """Unweighted clustering of an undirected graph, NetworkX's ``t / (d (d - 1))``."""
    vals = _clustering_values(G)
    if nodes is not None:
        return vals[G.node_index(nodes)]
    return dict(zip(G.nodes, vals, strict=True))


def average_clustering(G, nodes=None, weight=None, count_zeros=True):
    """NetworkX's ``sum(c) / len(c)`` over the clustering values, in node order."""
    c = _clustering_values(G)
    if not count_zeros:
        c = [v for v in c if abs(v) > 0]
    return sum(c) / len(c)


def transitivity(G):
    """``sum of 2 * triangles / sum of d (d - 1)`` in Python ints, as NetworkX."""
    _no_multigraph(G)
    if G.n == 0:
        return 0
    tri, deg = _triangles(G)
    t = 2 * int(tri.sum())
    contri = int((deg * (deg - 1)).sum())
    return 0 if t == 0 else t / contri
