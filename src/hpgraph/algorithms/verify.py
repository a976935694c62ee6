"""Verifiers: independent checks of a kernel's result (GAP's verifiers, the Graph500 and
LDBC Graphalytics validation rules). Each raises VerificationError naming the first
violation; tests and ``hpgraph bench --verify`` call them.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from hpgraph import config
from hpgraph.errors import VerificationError

__all__ = ["verify_bfs", "verify_sssp", "verify_wcc", "verify_pagerank", "reference_pagerank"]


def _edge_list(graph):
    src, dst, w = graph.edges()
    return src.astype(np.int64), dst.astype(np.int64), w


def _has_edges(graph, src, dst):
    """Whether each (src[i], dst[i]) is a stored edge (adjacency rows are sorted)."""
    ok = np.zeros(src.shape[0], dtype=bool)
    for i, (u, v) in enumerate(zip(src.tolist(), dst.tolist(), strict=True)):
        row = graph.indices[graph.indptr[u] : graph.indptr[u + 1]]
        j = np.searchsorted(row, v)
        ok[i] = j < row.shape[0] and row[j] == v
    return ok


def _fail(msg, graph=None, v=None):
    if graph is not None and v is not None:
        msg = f"vertex {graph.user_ids()[v]!r}: {msg}"
    raise VerificationError(msg)


def _check_tree(graph, source, level, parent, reached, edge_ok, name):
    """Graph500 rules shared by BFS and SSSP: the parents form a tree rooted at the
    source over exactly the reached vertices, and each tree edge is a graph edge that
    ``edge_ok(parent, child)`` accepts."""
    n = graph.n
    if parent.shape != (n,) or level.shape != (n,):
        _fail(f"{name}: result columns must have {n} entries")
    if parent[source] != source:
        _fail(f"{name}: the source is not its own parent", graph, source)
    bad = np.flatnonzero(reached != (parent >= 0))
    if bad.size:
        _fail(f"{name}: reached but no parent, or a parent but unreached", graph, bad[0])
    kids = np.flatnonzero(reached)
    kids = kids[kids != source]
    par = parent[kids]
    if (par >= n).any():
        _fail(f"{name}: parent id out of range", graph, kids[np.argmax(par >= n)])
    notedge = np.flatnonzero(~_has_edges(graph, par, kids))
    if notedge.size:
        _fail(f"{name}: parent is not an in-neighbour", graph, kids[notedge[0]])
    wrong = np.flatnonzero(~edge_ok(par, kids))
    if wrong.size:
        _fail(f"{name}: tree edge from its parent breaks the level rule", graph, kids[wrong[0]])
    # every parent chain ends at the source (no cycles): pointer jumping, log2(n) rounds;
    # unreached vertices are their own fixed points, so a chain through one fails
    hops = np.where(reached, parent, np.arange(n))
    for _ in range(max(n, 1).bit_length() + 1):
        hops = hops[hops]
    off = kids[hops[kids] != source]
    if off.size:
        _fail(f"{name}: parent chain does not lead to the source", graph, off[0])


def verify_bfs(graph, source, result):
    """Graph500 BFS rules plus Graphalytics depths: levels of tree edges differ by one,
    every edge joins levels differing by at most one (directed: depth[v] <= depth[u] + 1),
    the tree spans exactly the source's reachable set."""
    s = graph.vertex_index(source)
    depth = np.asarray(result["depth"], dtype=np.int64)
    parent = np.asarray(result["parent"], dtype=np.int64)
    reached = depth >= 0
    if depth[s] != 0:
        _fail("bfs: the source's depth is not 0", graph, s)
    _check_tree(graph, s, depth, parent, reached, lambda p, c: depth[c] == depth[p] + 1, "bfs")
    src, dst, _ = _edge_list(graph)
    from_reached = reached[src]
    bad = from_reached & (~reached[dst] | (depth[dst] > depth[src] + 1))
    if bad.any():
        k = int(np.argmax(bad))
        _fail(f"bfs: edge from depth {depth[src[k]]} leads to depth {depth[dst[k]]}", graph, dst[k])


def verify_sssp(graph, source, result, rtol=config.FLOAT_RTOL):
    """Graph500 SSSP rules: dist[source] = 0; no edge can shorten a distance; each tree
    edge is tight; the tree spans exactly the reachable vertices."""
    s = graph.vertex_index(source)
    dist = np.asarray(result["distance"], dtype=np.float64)
    parent = np.asarray(result["parent"], dtype=np.int64)
    reached = np.isfinite(dist)
    if dist[s] != 0:
        _fail("sssp: the source's distance is not 0", graph, s)
    src, dst, w = _edge_list(graph)
    w = np.ones(src.shape[0]) if w is None else w
    slack = rtol * np.maximum(np.abs(dist[np.isfinite(dist)]).max(initial=1.0), 1.0)
    ok_src = reached[src]
    short = ok_src & (dist[dst] > dist[src] + w + slack)
    if short.any():
        k = int(np.argmax(short))
        _fail(f"sssp: edge gives {dist[src[k]] + w[k]} < distance {dist[dst[k]]}", graph, dst[k])
    # tightness needs the weight of the (parent, child) edge: the smallest such weight
    order = np.lexsort((w, dst, src))
    keys = src[order] * max(graph.n, 1) + dst[order]
    first = np.concatenate([[True], keys[1:] != keys[:-1]]) if keys.size else keys.astype(bool)
    kmin, wmin = keys[first], w[order][first]

    def tight(p, c):
        q = np.searchsorted(kmin, p * max(graph.n, 1) + c)
        q = np.minimum(q, max(kmin.size - 1, 0))
        found = kmin[q] == p * max(graph.n, 1) + c if kmin.size else np.zeros(p.shape, bool)
        return found & (np.abs(dist[p] + wmin[q] - dist[c]) <= slack)

    _check_tree(graph, s, dist, parent, reached, tight, "sssp")


def verify_wcc(graph, result):
    """Graphalytics WCC: labels equal the reference components up to relabelling."""
    comp = np.asarray(result["component"])
    n = graph.n
    if comp.shape != (n,):
        _fail(f"wcc: expected {n} labels, got {comp.shape}")
    if n == 0:
        return
    src, dst, _ = _edge_list(graph)
    a = sp.csr_matrix((np.ones(src.size, dtype=np.int8), (src, dst)), shape=(n, n))
    k, ref = connected_components(a, directed=True, connection="weak")
    # a bijection between our labels and the reference's
    pairs = np.unique(np.stack([ref, comp.astype(np.int64)]), axis=1)
    if pairs.shape[1] != k or np.unique(pairs[1]).size != k:
        ours = np.unique(comp).size
        _fail(f"wcc: {ours} labels do not match the {k} weakly connected components")


def reference_pagerank(graph, damping, iterations):
    """Straightforward power iteration with scipy (the Graphalytics definition)."""
    n = graph.n
    if n == 0:
        return np.zeros(0)
    src, dst, _ = _edge_list(graph)
    outdeg = np.bincount(src, minlength=n).astype(np.float64)
    a = sp.csr_matrix(
        (1.0 / outdeg[src], (dst, src)), shape=(n, n)
    )  # duplicates summed: multi-edges count
    dangling = outdeg == 0
    pr = np.full(n, 1.0 / n)
    for _ in range(iterations):
        pr = (1 - damping) / n + damping * (a @ pr + pr[dangling].sum() / n)
    return pr


def verify_pagerank(graph, result, damping=0.85, iterations=20, rtol=config.FLOAT_RTOL):
    """Graphalytics PR: within relative ``rtol`` of the reference, per vertex."""
    rank = np.asarray(result["rank"], dtype=np.float64)
    ref = reference_pagerank(graph, damping, iterations)
    if rank.shape != ref.shape:
        _fail(f"pagerank: expected {ref.shape[0]} ranks, got {rank.shape}")
    bad = np.flatnonzero(np.abs(rank - ref) > rtol * np.abs(ref))
    if bad.size:
        v = bad[0]
        _fail(f"pagerank: rank {rank[v]!r} differs from the reference {ref[v]!r}", graph, v)
