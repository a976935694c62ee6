"""The :class:`Mentions` type and BMLPA's initial labels from it.

Given the user graph, the mentions' endpoints and their tag CSR, :class:`Mentions` holds
them; :meth:`Mentions.initial_labels` returns every user's hashtags, weighted by how many
of its mentions carried each one (the seed paper's rule).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.graph.csr import Graph, index_dtype
from hpgraph.io.mentions.tags import _check_tag_csr, _row_sets
from hpgraph.io.mentions.write import write_mentions

__all__ = ["Mentions"]


@dataclass(eq=False, repr=False)
class Mentions:
    """Mentions with hashtags. ``graph``: directed, one edge per mention (user ids in
    ``graph.ids``); ``src``/``dst``: internal id of each mention's endpoints, input order;
    mention i's hashtags are ``tag_ids[tag_ptr[i]:tag_ptr[i + 1]]`` (ascending, distinct)
    indexing ``tag_names`` (no ``#``, lowercase, sorted)."""

    graph: Graph
    src: np.ndarray
    dst: np.ndarray
    tag_ptr: np.ndarray
    tag_ids: np.ndarray
    tag_names: list[str]
    path: str | None = None

    @classmethod
    def from_arrays(
        cls, src, dst, tag_ptr, tag_ids, tag_names, *, n=None, ids=None, path=None, name=""
    ) -> Mentions:
        """Build from internal ids ``0..n-1`` (``ids``: the users' ids, as for
        :class:`Graph`) and a tag CSR; rows are sorted and deduplicated here."""
        src = np.asarray(src)
        dst = np.asarray(dst)
        ptr, tags = _check_tag_csr(src.shape[0], tag_ptr, tag_ids, len(tag_names))
        ptr, tags = _row_sets(ptr, tags)
        graph = Graph.from_edges(src, dst, n=n, directed=True, ids=ids, name=name)
        idt = index_dtype(graph.n)
        return cls(
            graph,
            src.astype(idt, copy=False),
            dst.astype(idt, copy=False),
            ptr,
            tags,
            list(tag_names),
            None if path is None else str(path),
        )

    def __repr__(self):
        return (
            f"<Mentions {self.graph.name!r}: {self.num_mentions:,} mentions, "
            f"{self.num_users:,} users, {self.num_hashtags:,} hashtags>"
        )

    @property
    def num_mentions(self) -> int:
        return int(self.src.shape[0])

    @property
    def num_users(self) -> int:
        return self.graph.n

    @property
    def num_hashtags(self) -> int:
        return len(self.tag_names)

    def tagged_share(self) -> float:
        """Share of the mentions that carry at least one hashtag."""
        if not self.num_mentions:
            return 0.0
        return float(np.count_nonzero(np.diff(self.tag_ptr))) / self.num_mentions

    def memory_bytes(self) -> int:
        """Bytes of the numpy arrays, the graph's CSR and the hashtags' UTF-8 text (not
        Python's per-object overhead of string ids and names)."""
        arrays = self.src.nbytes + self.dst.nbytes + self.tag_ptr.nbytes + self.tag_ids.nbytes
        text = sum(len(s.encode()) for s in self.tag_names)
        return int(arrays + self.graph.memory_bytes() + text)

    def initial_labels(self):
        """BMLPA initial labels by the seed's rule: user i gets every hashtag of the
        mentions it sent, weighted by how many of them carried it. Returns
        :class:`~hpgraph.algorithms.bmlpa.VertexLabels` (CSR by internal id, labels
        ascending, ``names`` = ``tag_names``, ``weights`` = counts); users who never
        sent a tagged mention have no row entries (BMLPA gives them their own label)."""
        from hpgraph.algorithms.bmlpa import VertexLabels

        ptr, labels, weights = _user_tag_counts(self.graph.n, self.src, self.tag_ptr, self.tag_ids)
        return VertexLabels(ptr, labels, list(self.tag_names), weights)

    def write(self, path) -> None:
        """Write these mentions with :func:`write_mentions` (users by their ids)."""
        ids = self.graph.user_ids()
        write_mentions(
            path, ids[self.src], ids[self.dst], self.tag_ptr, self.tag_ids, self.tag_names
        )


@njit(**NUMBA_FLAGS)
def _user_tag_counts_kernel(n, src, tag_ptr, tag_ids):
    m = src.shape[0]
    start = np.zeros(n + 1, dtype=np.int64)
    for i in range(m):
        start[src[i] + 1] += tag_ptr[i + 1] - tag_ptr[i]
    for u in range(n):
        start[u + 1] += start[u]
    fill = start[:-1].copy()
    buf = np.empty(start[n], dtype=np.int32)
    for i in range(m):
        u = src[i]
        for e in range(tag_ptr[i], tag_ptr[i + 1]):
            buf[fill[u]] = tag_ids[e]
            fill[u] += 1
    ptr = np.zeros(n + 1, dtype=np.int64)
    labels = np.empty(start[n], dtype=np.int32)
    weights = np.empty(start[n], dtype=np.float64)
    o = 0
    for u in range(n):
        if start[u + 1] - start[u] == 1:
            labels[o] = buf[start[u]]
            weights[o] = 1.0
            o += 1
            ptr[u + 1] = o
            continue
        row = buf[start[u] : start[u + 1]]
        if row.shape[0] > 1:
            row.sort()
        q = 0
        while q < row.shape[0]:
            x = row[q]
            c = 0
            while q < row.shape[0] and row[q] == x:
                c += 1
                q += 1
            labels[o] = x
            weights[o] = c
            o += 1
        ptr[u + 1] = o
    return ptr, labels[:o].copy(), weights[:o].copy()


def _user_tag_counts(n, src, tag_ptr, tag_ids):
    return _user_tag_counts_kernel(
        n,
        np.ascontiguousarray(src),
        np.ascontiguousarray(tag_ptr, dtype=np.int64),
        np.ascontiguousarray(tag_ids, dtype=np.int32),
    )
