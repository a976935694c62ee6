"""Array helpers of the benchmark harness: competitor formats and result normalisation.

Nothing here is timed: conversions run before a kernel's timed region, normalisation
after it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = [
    "dedup_csr",
    "undirected_edges",
    "depth_from_parents",
    "canonical_components",
    "traversed_edges",
    "loops_per_vertex",
]


@njit(**NUMBA_FLAGS)
def _dedup(indptr, indices, weights, has_w):
    """Merge parallel edges (rows are sorted, so they are adjacent): the value of a merged
    edge is its multiplicity, or its smallest weight when ``has_w``."""
    n = indptr.shape[0] - 1
    out_ptr = np.zeros(n + 1, dtype=np.int64)
    out_idx = np.empty(indices.shape[0], dtype=indices.dtype)
    out_val = np.empty(indices.shape[0], dtype=np.float64)
    k = 0
    for v in range(n):
        lo = indptr[v]
        hi = indptr[v + 1]
        j = lo
        while j < hi:
            t = indices[j]
            val = weights[j] if has_w else 1.0
            j += 1
            while j < hi and indices[j] == t:
                if has_w:
                    val = min(val, weights[j])
                else:
                    val += 1.0
                j += 1
            out_idx[k] = t
            out_val[k] = val
            k += 1
        out_ptr[v + 1] = k
    return out_ptr, out_idx[:k].copy(), out_val[:k].copy()


def dedup_csr(graph, weighted: bool):
    """(indptr, indices, values) of ``graph`` without parallel edges: values are edge
    multiplicities (``weighted=False``) or the smallest parallel weight (``weighted=True``,
    what shortest paths use). Fresh, writeable arrays (competitors may take them over)."""
    if weighted and graph.weights is None:
        raise ValueError("the graph has no weights")
    w = graph.weights if weighted else np.empty(0, dtype=np.float64)
    return _dedup(graph.indptr, graph.indices, w, weighted)


def undirected_edges(indptr, indices, values=None, directed=False):
    """Edge arrays ``(src, dst, values)`` from a CSR; for an undirected graph (both
    directions stored) each edge once, as ``src <= dst``."""
    n = indptr.shape[0] - 1
    src = np.repeat(np.arange(n, dtype=indices.dtype), np.diff(indptr))
    if directed:
        return src, indices, values
    keep = src <= indices
    return src[keep], indices[keep], (None if values is None else values[keep])


def depth_from_parents(parent, reached, root):
    """BFS depth from a parent array by pointer jumping (O(log depth) numpy passes);
    -1 where not ``reached``. ``parent`` of the root and of unreached vertices is ignored."""
    n = parent.shape[0]
    anc = np.asarray(parent, dtype=np.int64).copy()
    anc[~reached] = root
    anc[root] = root
    d = reached.astype(np.int64)
    d[root] = 0
    d[~reached] = 0
    # invariant for reached v: depth(v) = d[v] + depth(anc[v])
    for _ in range(64):
        if np.all(anc == root):
            break
        d += d[anc]
        anc = anc[anc]
    else:  # pragma: no cover - a cycle in the parent array
        raise ValueError("parent array has a cycle")
    d[~reached] = -1
    assert d.shape[0] == n
    return d


def canonical_components(labels):
    """Component labels rewritten as the smallest vertex of each component, so two
    labellings of the same partition compare equal."""
    labels = np.asarray(labels)
    _, dense = np.unique(labels, return_inverse=True)
    dense = dense.reshape(-1)
    smallest = np.full(dense.max(initial=-1) + 1, labels.shape[0], dtype=np.int64)
    np.minimum.at(smallest, dense, np.arange(labels.shape[0], dtype=np.int64))
    return smallest[dense]


@njit(**NUMBA_FLAGS)
def loops_per_vertex(indptr, indices):
    n = indptr.shape[0] - 1
    out = np.zeros(n, dtype=np.int64)
    for v in range(n):
        for k in range(indptr[v], indptr[v + 1]):
            if indices[k] == v:
                out[v] += 1
    return out


def traversed_edges(graph, reached, loops=None):
    """Graph500's edge count of a search: input edges with an endpoint reached (every edge
    once, parallel edges and self-loops included)."""
    deg = graph.out_degree()
    if graph.directed:
        return int(deg[reached].sum())
    if loops is None:
        loops = loops_per_vertex(graph.indptr, graph.indices)
    # a non-loop edge is stored at both endpoints, a self-loop once
    return int((deg[reached].sum() + loops[reached].sum()) // 2)
