"""Partitions of the vertices into parts, one per peer (thread or MPI rank).

The engine always works on contiguous ranges of internal ids: a part is
``offsets[p] .. offsets[p+1]``. Range partitioning balances ``alpha * vertices + edges``
per part (Gemini's chunking); hash partitioning first relabels the graph so that each hash
class becomes a contiguous range (GraphScope's fragments do the same), then uses ranges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.csr import Graph

__all__ = [
    "Partition",
    "range_partition",
    "range_cuts",
    "nested_cuts",
    "own_cuts",
    "hash_partition",
    "local_degrees",
]


@dataclass(frozen=True)
class Partition:
    """``offsets`` (int64, length parts+1): part p owns internal ids offsets[p]..offsets[p+1]."""

    offsets: np.ndarray

    @property
    def parts(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def owner(self, v):
        """Part owning vertex (or array of vertices) ``v``."""
        return np.searchsorted(self.offsets, v, side="right") - 1

    def sizes(self) -> np.ndarray:
        return np.diff(self.offsets)

    def edge_counts(self, graph: Graph) -> np.ndarray:
        return np.diff(graph.indptr[self.offsets])


def range_partition(graph: Graph, parts: int, alpha: float = 8.0) -> Partition:
    """Contiguous ranges with about equal ``alpha * vertices + out-edges`` each.

    ``alpha`` weighs a vertex against an edge (Gemini uses 8 * parts; per-vertex work in the
    engine, the activity scan and value update, costs a few edge visits).
    """
    return Partition(range_cuts(graph.indptr, parts, alpha))


def range_cuts(indptr, parts: int, alpha: float = 8.0) -> np.ndarray:
    """The offsets (int64, ``parts + 1``) of :func:`range_partition` from a CSR's
    ``indptr`` alone (a parallel reader knows it before the graph exists)."""
    if parts < 1:
        raise InvalidArgumentError(f"parts must be >= 1, got {parts}")
    return _range_cuts(np.asarray(indptr), int(parts), float(alpha))


@njit(**NUMBA_FLAGS)
def _range_cuts(indptr, parts, alpha):
    """Cut p at the first vertex boundary v whose cumulative work ``alpha * v +
    indptr[v]`` reaches p / parts of the total: a binary search per cut, since the work
    only grows (every job partitions its graph; the work array in numpy cost 24 MB of
    fresh memory and 5-20 ms at a million vertices)."""
    n = indptr.shape[0] - 1
    total = alpha * np.float64(n) + np.float64(indptr[n])
    out = np.empty(parts + 1, dtype=np.int64)
    out[0] = 0
    for p in range(1, parts):
        target = total * np.float64(p) / parts
        a, b = 0, n + 1
        while a < b:
            mid = (a + b) // 2
            if alpha * np.float64(mid) + np.float64(indptr[mid]) < target:
                a = mid + 1
            else:
                b = mid
        out[p] = max(a, out[p - 1])
    out[parts] = max(n, out[parts - 1])
    return out


def nested_cuts(indptr, groups: int, parts: int, alpha: float = 8.0) -> np.ndarray:
    """``groups * parts + 1`` offsets: :func:`range_cuts` into ``groups`` ranges (MPI
    ranks), each cut again into ``parts`` (its threads) by :func:`range_cuts` of its own
    rows, so a rank's parts depend on its own rows alone (what a rank holding only its
    part computes, :mod:`hpgraph.runtimes.mpi.parts`)."""
    outer = range_cuts(indptr, groups, alpha)
    cuts = [
        own_cuts(indptr[a : b + 1], int(a), parts, alpha)[:-1]
        for a, b in zip(outer[:-1], outer[1:], strict=True)
    ]
    return np.concatenate(cuts + [outer[-1:]]).astype(np.int64)


def own_cuts(own_indptr, lo: int, parts: int, alpha: float = 8.0) -> np.ndarray:
    """:func:`range_cuts` of the rows ``lo ..`` whose ``indptr`` entries are
    ``own_indptr`` (any base), as global offsets."""
    return range_cuts(own_indptr - own_indptr[0], parts, alpha) + lo


def hash_partition(graph: Graph, parts: int) -> tuple[Graph, Partition]:
    """Relabel ``graph`` so that vertices with ``id % parts == p`` form part p.

    Returns the relabelled graph (user ids preserved, so results read the same) and its
    range partition.
    """
    if parts < 1:
        raise InvalidArgumentError(f"parts must be >= 1, got {parts}")
    n = graph.n
    owner = np.arange(n, dtype=np.int64) % parts
    order = np.argsort(owner, kind="stable")  # new id -> old id
    new_of_old = np.empty(n, dtype=np.int64)
    new_of_old[order] = np.arange(n, dtype=np.int64)
    src, dst, w = graph.edges()
    ids = graph.user_ids()[order]
    if graph.directed:
        g = Graph.from_edges(new_of_old[src], new_of_old[dst], w, n=n, directed=True, ids=ids)
    else:
        keep = src <= dst  # each undirected edge once
        g = Graph.from_edges(
            new_of_old[src[keep]],
            new_of_old[dst[keep]],
            None if w is None else w[keep],
            n=n,
            directed=False,
            ids=ids,
        )
    counts = np.bincount(owner, minlength=parts)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return g, Partition(offsets)


@njit(**NUMBA_FLAGS)
def local_degrees(indptr, indices, lo, hi, out):
    """out[u] = out-edges of u (for u in part [lo, hi)) whose target is in the part too.
    Rows are sorted, so that is two binary searches per vertex."""
    for u in range(lo, hi):
        a = indptr[u]
        b = indptr[u + 1]
        if b > a and indices[a] < hi and indices[b - 1] >= lo:
            row = indices[a:b]
            out[u] = np.searchsorted(row, hi) - np.searchsorted(row, lo)
        else:
            out[u] = 0
