"""Small named graphs for tests and examples (NetworkX's names and vertex numbering).

Each takes ``directed=False``; a directed version has the edges in the direction the
description gives (path ``i -> i+1``, cycle ``i -> i+1 mod n``, star ``0 -> leaf``, grid
right and down, complete: every ordered pair).
"""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.graph import Graph

__all__ = [
    "path_graph",
    "cycle_graph",
    "star_graph",
    "grid_2d",
    "complete_graph",
    "empty_graph",
]


def _count(name, value):
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
        raise InvalidArgumentError(f"{name} must be a non-negative integer, got {value!r}")
    return int(value)


def _graph(src, dst, n, directed, name):
    src = np.asarray(src, dtype=np.int64)
    dst = np.asarray(dst, dtype=np.int64)
    return Graph.from_edges(src, dst, n=n, directed=directed, name=name)


def path_graph(n, *, directed=False) -> Graph:
    """``n`` vertices, edges ``i - i+1`` (``nx.path_graph(n)``)."""
    n = _count("n", n)
    i = np.arange(max(n - 1, 0))
    return _graph(i, i + 1, n, directed, f"path({n})")


def cycle_graph(n, *, directed=False) -> Graph:
    """``n`` vertices, edges ``i - (i+1) mod n`` (``nx.cycle_graph(n)``: one self-loop for
    ``n == 1``; one edge for ``n == 2`` undirected, two opposite ones directed)."""
    n = _count("n", n)
    i = np.arange(n)
    src, dst = i, (i + 1) % max(n, 1)
    if n == 2 and not directed:
        src, dst = src[:1], dst[:1]
    return _graph(src, dst, n, directed, f"cycle({n})")


def star_graph(n, *, directed=False) -> Graph:
    """``n`` vertices: centre 0 joined to leaves ``1..n-1``.

    Note: ``n`` counts all vertices, unlike ``nx.star_graph(k)`` which has ``k + 1``
    (so this is ``nx.star_graph(n - 1)``).
    """
    n = _count("n", n)
    leaves = np.arange(1, max(n, 1))
    return _graph(np.zeros_like(leaves), leaves, n, directed, f"star({n})")


def grid_2d(rows, cols, *, directed=False) -> Graph:
    """A ``rows x cols`` lattice; vertex ``r * cols + c`` is cell ``(r, c)`` (the order of
    ``nx.grid_2d_graph(rows, cols)``'s nodes), joined to its right and lower neighbours."""
    rows = _count("rows", rows)
    cols = _count("cols", cols)
    ids = np.arange(rows * cols).reshape(rows, cols)
    right = (ids[:, :-1].ravel(), ids[:, 1:].ravel())
    down = (ids[:-1, :].ravel(), ids[1:, :].ravel())
    src = np.concatenate([right[0], down[0]])
    dst = np.concatenate([right[1], down[1]])
    return _graph(src, dst, rows * cols, directed, f"grid({rows}x{cols})")


def complete_graph(n, *, directed=False) -> Graph:
    """``n`` vertices, every pair joined once (every ordered pair when directed), no
    self-loops (``nx.complete_graph(n)``)."""
    n = _count("n", n)
    src, dst = np.nonzero(~np.eye(n, dtype=bool)) if directed else np.triu_indices(n, 1)
    return _graph(src, dst, n, directed, f"complete({n})")


def empty_graph(n, *, directed=False) -> Graph:
    """``n`` isolated vertices (``nx.empty_graph(n)``)."""
    n = _count("n", n)
    none = np.empty(0, dtype=np.int64)
    return _graph(none, none, n, directed, f"empty({n})")
