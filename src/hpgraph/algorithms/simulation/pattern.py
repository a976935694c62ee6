"""The pattern of graph pattern matching.

Given a pattern's vertex ids, labels and edges, :class:`Pattern` validates them and returns
the bit masks of each pattern vertex's children and parents and the undirected diameter
that dual and strict simulation read.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from hpgraph.errors import InvalidArgumentError

__all__ = ["MAX_PATTERN_VERTICES", "Pattern"]


#: One bit per pattern vertex in each 32-bit half of a 64-bit message.
MAX_PATTERN_VERTICES = 32


@dataclass(frozen=True, eq=False)
class Pattern:
    """A small directed labelled pattern. Pattern vertex ``i`` (bit ``i`` of every mask)
    is ``ids[i]`` with label ``labels[i]``; ``src``/``dst`` hold the edges as indices."""

    ids: tuple
    labels: tuple
    src: np.ndarray
    dst: np.ndarray

    def __post_init__(self):
        k = len(self.ids)
        if k == 0:
            raise InvalidArgumentError("the pattern has no vertices")
        if k > MAX_PATTERN_VERTICES:
            raise InvalidArgumentError(
                f"the pattern has {k} vertices; simulation supports at most "
                f"{MAX_PATTERN_VERTICES} (one bit per pattern vertex in half a 64-bit message)"
            )
        if len(self.labels) != k:
            raise InvalidArgumentError(
                f"the pattern has {k} vertices but {len(self.labels)} labels"
            )
        if len(set(self.ids)) != k:
            raise InvalidArgumentError("the pattern's vertex ids are not distinct")
        for u, lab in zip(self.ids, self.labels, strict=True):
            if lab is None:
                raise InvalidArgumentError(f"pattern vertex {u!r} has no label")
        src = np.asarray(self.src, dtype=np.int64).reshape(-1)
        dst = np.asarray(self.dst, dtype=np.int64).reshape(-1)
        if src.shape != dst.shape:
            raise InvalidArgumentError("the pattern's src and dst differ in length")
        if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= k):
            raise InvalidArgumentError(f"pattern edge endpoints must be indices 0..{k - 1}")
        object.__setattr__(self, "src", src)
        object.__setattr__(self, "dst", dst)
        object.__setattr__(self, "labels", tuple(_norm_label(x) for x in self.labels))

    @classmethod
    def from_edges(cls, edges, labels) -> Pattern:
        """From ``[(src, dst), ...]`` in any hashable ids and ``labels``: ``{id: label}``
        (vertices in the dict's order, isolated ones included) or a sequence indexed by
        integer ids ``0..k-1``."""
        pairs = [tuple(e) for e in edges]
        if any(len(p) != 2 for p in pairs):
            raise InvalidArgumentError("pattern edges must be (src, dst) pairs")
        if isinstance(labels, Mapping):
            ids = tuple(labels)
            labs = tuple(labels.values())
        elif labels is None:
            raise InvalidArgumentError("an edge-list pattern needs pattern_labels")
        else:
            labs = tuple(labels)
            ids = tuple(range(len(labs)))
        index = {u: i for i, u in enumerate(ids)}
        for p in pairs:
            for x in p:
                if x not in index:
                    raise InvalidArgumentError(f"pattern vertex {x!r} has no label")
        src = np.array([index[a] for a, _ in pairs], dtype=np.int64)
        dst = np.array([index[b] for _, b in pairs], dtype=np.int64)
        return cls(ids, labs, src, dst)

    @property
    def k(self) -> int:
        return len(self.ids)

    @functools.cached_property
    def masks(self) -> np.ndarray:
        """int64 ``[children(0), parents(0), children(1), ...]``: bit masks of each pattern
        vertex's pattern children and parents."""
        out = np.zeros(2 * self.k, dtype=np.int64)
        for a, b in zip(self.src.tolist(), self.dst.tolist(), strict=True):
            out[2 * a] |= 1 << b
            out[2 * b + 1] |= 1 << a
        return out

    @functools.cached_property
    def diameter(self) -> int | None:
        """The longest undirected shortest path (``None`` when disconnected)."""
        adj = [set() for _ in range(self.k)]
        for a, b in zip(self.src.tolist(), self.dst.tolist(), strict=True):
            adj[a].add(b)
            adj[b].add(a)
        best = 0
        for s in range(self.k):
            dist = {s: 0}
            frontier = [s]
            while frontier:
                nxt = []
                for x in frontier:
                    for y in adj[x]:
                        if y not in dist:
                            dist[y] = dist[x] + 1
                            nxt.append(y)
                frontier = nxt
            if len(dist) < self.k:
                return None
            best = max(best, max(dist.values()))
        return best


def _norm_label(x):
    """Labels compare by value: numpy scalars become Python ones (3 == np.int64(3), but
    3 != "3")."""
    return x.item() if isinstance(x, np.generic) else x
