"""Quality measures of a drawing.

Given a graph and positions (a layout result, an array or a dict), :func:`layout_quality`
returns the edge-length spread, the neighbour ratio and, on small graphs, the normalised
stress against hop distances.
"""

from __future__ import annotations

import math

import numpy as np

from hpgraph.algorithms._common import check_graph
from hpgraph.errors import InvalidArgumentError
from hpgraph.result import VertexResult

__all__ = ["layout_quality"]


_COLS = ("x", "y", "z")


def _positions(graph, pos):
    if isinstance(pos, VertexResult):
        cols = [c for c in _COLS if c in pos.columns]
        return np.column_stack([pos[c] for c in cols]).astype(np.float64)
    if isinstance(pos, dict):  # {user id: coordinates}, e.g. networkx.spring_layout
        return np.array([pos[i] for i in graph.user_ids().tolist()], dtype=np.float64)
    arr = np.asarray(pos, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != graph.n:
        raise InvalidArgumentError(f"positions must have shape ({graph.n}, dim), got {arr.shape}")
    return arr


def layout_quality(graph, positions, *, pairs=200_000, seed=0, stress_max=2000):
    """Quality of a layout (a :func:`layout` result, an ``(n, dim)`` array, or a
    ``{vertex: coordinates}`` dict), on the undirected simple view of the graph (each
    vertex pair joined by an edge counted once, self-loops dropped):

    - ``edge_length_cv``: standard deviation / mean of the edge lengths (0: all equal);
    - ``neighbour_ratio``: mean edge length / mean distance between two distinct
      vertices (all pairs up to ``stress_max`` vertices, else ``pairs`` random pairs from
      ``default_rng(seed)``); well below 1 when neighbours are drawn close;
    - ``stress`` (graphs up to ``stress_max`` vertices, else ``None``): normalised stress
      ``mean (s*|x_i - x_j| - d_ij)^2 / d_ij^2`` over connected pairs, d_ij the hop
      distance, s the scale that minimises it (so the measure ignores the drawing's size).
    Measures that need an edge or a pair are ``nan`` when there is none.
    """
    check_graph(graph)
    x = _positions(graph, positions)
    n = graph.n
    src, dst, _ = graph.symmetrized().edges()
    keep = src < dst
    e = np.unique(np.stack([src[keep], dst[keep]]).astype(np.int64), axis=1)
    out = {"edge_length_cv": math.nan, "neighbour_ratio": math.nan, "stress": None}
    if e.shape[1]:
        lengths = np.linalg.norm(x[e[0]] - x[e[1]], axis=1)
        mean_len = float(lengths.mean())
        if mean_len > 0:
            out["edge_length_cv"] = float(lengths.std() / mean_len)
    if n < 2:
        return out
    if n <= stress_max:
        from scipy.spatial.distance import pdist

        pd = pdist(x)
    else:
        rng = np.random.default_rng(seed)
        a = rng.integers(0, n, pairs)
        b = (a + rng.integers(1, n, pairs)) % n  # b != a
        pd = np.linalg.norm(x[a] - x[b], axis=1)
    if e.shape[1] and pd.mean() > 0:
        out["neighbour_ratio"] = mean_len / float(pd.mean())
    if n <= stress_max:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import shortest_path
        from scipy.spatial.distance import squareform

        adj = csr_matrix((np.ones(e.shape[1]), (e[0], e[1])), shape=(n, n))
        hops = shortest_path(adj, directed=False, unweighted=True)
        iu = np.triu_indices(n, 1)
        d = hops[iu]
        dx = squareform(pd)[iu]
        ok = np.isfinite(d)
        if ok.any():
            d, dx = d[ok], dx[ok]
            den = float(np.sum(dx * dx / (d * d)))
            s = float(np.sum(dx / d)) / den if den > 0 else 1.0
            out["stress"] = float(np.mean((s * dx - d) ** 2 / (d * d)))
    return out
