"""The immutable graph: CSR out-edges, lazily built CSR in-edges, user ids.

Memory (n vertices, m stored edges; undirected edges are stored in both directions,
self-loops once):

- out-edges: ``indptr`` int64 (8 B/vertex) + ``indices`` int32 when n < 2**31, else int64
  (4 B/edge) + optional float64 weights (8 B/edge);
- in-edges (directed graphs only, built on first use by pull-style kernels): the same again;
- user ids: none when the input ids are 0..n-1, else one int64 (8 B/vertex) or a
  Python string per vertex.

So an unweighted undirected graph costs 4 B per stored edge (8 B per undirected edge) and
8 B per vertex. Adjacency lists are sorted by target: the engine relies on it to find, by
binary search, the slice of a vertex's edges that lands in one partition.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError, InvalidGraphError
from hpgraph.graph.build import build_csr

__all__ = ["Graph", "index_dtype", "count_self_loops"]


def index_dtype(n: int) -> np.dtype:
    """The narrowest signed integer type that holds vertex ids 0..n-1."""
    return np.dtype(np.int32) if n < 2**31 - 1 else np.dtype(np.int64)


#: ``Graph._id_index`` of sorted integer ids: found by binary search, no table.
_SORTED = object()


def _sorted_index(ids: np.ndarray, user_id, sorter=None) -> int:
    """The position of ``user_id`` (an integer, or a string of one) in ``ids``: sorted,
    or in the order of ``sorter`` (``np.argsort(ids)``)."""
    key = None
    if isinstance(user_id, (int, np.integer)):
        key = int(user_id)
    elif isinstance(user_id, (float, np.floating)) and float(user_id).is_integer():
        key = int(user_id)  # as a table would find it (3.0 == 3)
    elif isinstance(user_id, str):
        try:
            key = int(user_id)
        except ValueError:
            pass
    info = np.iinfo(ids.dtype)
    if key is not None and info.min <= key <= info.max:
        i = int(np.searchsorted(ids, key, sorter=sorter))
        if i < ids.shape[0]:
            i = i if sorter is None else int(sorter[i])
            if int(ids[i]) == key:
                return i
    raise InvalidArgumentError(f"unknown vertex {user_id!r}: not in this graph")


class Graph:
    """An immutable graph in CSR form with dense internal ids ``0..n-1``.

    Build one with :meth:`Graph.from_edges` (or the readers in :mod:`hpgraph.io` and the
    generators in :mod:`hpgraph.generators`). ``ids`` maps internal ids back to the
    input's ids (``None`` when they are the same); every public result is reported in
    those ids.
    """

    __slots__ = (
        "n",
        "directed",
        "indptr",
        "indices",
        "weights",
        "ids",
        "_in",
        "_id_index",
        "_sym",
        "_derived",
        "name",
    )

    def __init__(self, indptr, indices, weights=None, *, directed=True, ids=None, name=""):
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        n = indptr.shape[0] - 1
        if n < 0:
            raise InvalidGraphError("indptr must have at least one entry")
        indices = np.ascontiguousarray(indices)
        if indices.dtype != index_dtype(n):
            indices = indices.astype(index_dtype(n))
        if indptr[-1] != indices.shape[0]:
            raise InvalidGraphError(
                f"indptr ends at {indptr[-1]} but there are {indices.shape[0]} edge targets"
            )
        if weights is not None:
            weights = np.ascontiguousarray(weights, dtype=np.float64)
            if weights.shape != indices.shape:
                raise InvalidGraphError("weights must have one value per stored edge")
        if ids is not None and len(ids) != n:
            raise InvalidGraphError(f"ids has {len(ids)} entries for {n} vertices")
        self.n = int(n)
        self.directed = bool(directed)
        self.indptr = indptr
        self.indices = indices
        self.weights = weights
        self.ids = ids
        self.name = name
        self._in = None
        self._id_index = None
        self._sym = None
        self._derived = {}  # per-partition arrays the engine derives once (e.g. local degrees)
        # Immutable, and uniformly read-only so compiled kernels see one array type
        # whether the arrays were built here, memory-mapped or derived (in-edges).
        for a in (indptr, indices, weights):
            if a is not None and a.flags.writeable:
                a.flags.writeable = False

    # ------------------------------------------------------------------ building
    @classmethod
    def from_edges(
        cls, src, dst, weights=None, *, n=None, directed=True, ids=None, name="", threads=None
    ):
        """Build a graph from edge arrays of internal ids ``0..n-1``.

        ``n`` defaults to ``max id + 1``. For an undirected graph every edge is stored in
        both directions (self-loops once). Multi-edges are kept. Peak memory: the edge
        arrays plus the CSR (see :mod:`hpgraph.graph.build`).
        """
        src = np.asarray(src)
        dst = np.asarray(dst)
        if src.shape != dst.shape or src.ndim != 1:
            raise InvalidArgumentError("src and dst must be 1-D arrays of the same length")
        if src.size and (src.dtype.kind not in "iu" or dst.dtype.kind not in "iu"):
            raise InvalidArgumentError("src and dst must hold integer vertex ids")
        if n is None:
            n = int(max(src.max(initial=-1), dst.max(initial=-1)) + 1) if src.size else 0
        n = int(n)
        if src.size:
            lo = min(int(src.min()), int(dst.min()))
            hi = max(int(src.max()), int(dst.max()))
            if lo < 0 or hi >= n:
                raise InvalidArgumentError(f"edge endpoints must lie in 0..{n - 1}, got {lo}..{hi}")
        idt = index_dtype(n)
        src = src.astype(idt, copy=False)
        dst = dst.astype(idt, copy=False)
        if weights is not None:
            weights = np.asarray(weights, dtype=np.float64)
            if weights.shape != src.shape:
                raise InvalidArgumentError("weights must have one value per edge")
        indptr, indices, w = build_csr(
            src, dst, weights, n, idt, undirected=not directed, threads=threads
        )
        return cls(indptr, indices, w, directed=directed, ids=ids, name=name)

    # ------------------------------------------------------------------ properties
    @property
    def num_vertices(self) -> int:
        return self.n

    @property
    def num_stored_edges(self) -> int:
        """Edges as stored (an undirected non-loop edge counts twice)."""
        return int(self.indices.shape[0])

    @property
    def num_edges(self) -> int:
        """Edges as the user counts them (an undirected edge counts once)."""
        m = self.num_stored_edges
        if self.directed:
            return m
        loops = int(count_self_loops(self.indptr, self.indices))
        return (m - loops) // 2 + loops

    @property
    def weighted(self) -> bool:
        return self.weights is not None

    def out_degree(self) -> np.ndarray:
        return np.diff(self.indptr)

    def in_degree(self) -> np.ndarray:
        return np.diff(self.in_csr()[0])

    def in_csr(self):
        """(indptr, indices, weights) of the in-edges, rows sorted by source."""
        if not self.directed:
            return self.indptr, self.indices, self.weights
        if self._in is None:
            src = np.repeat(np.arange(self.n, dtype=self.indices.dtype), np.diff(self.indptr))
            ip, ix, w = build_csr(
                self.indices, src, self.weights, self.n, self.indices.dtype, undirected=False
            )
            del src
            for a in (ip, ix, w):
                if a is not None:
                    a.flags.writeable = False
            self._in = (ip, ix, w)
        return self._in

    def edges(self):
        """(src, dst, weights) arrays of the stored edges, internal ids."""
        src = np.repeat(np.arange(self.n, dtype=self.indices.dtype), np.diff(self.indptr))
        return src, self.indices, self.weights

    def symmetrized(self) -> Graph:
        """The undirected graph with the same vertices (direction ignored); self for
        undirected graphs."""
        if not self.directed:
            return self
        if self._sym is None:
            src, dst, w = self.edges()
            self._sym = Graph.from_edges(
                src, dst, w, n=self.n, directed=False, ids=self.ids, name=self.name
            )
        return self._sym

    def renumbered(self, order: str = "hubs", threads: int | None = None) -> Graph:
        """This graph with its vertices numbered in another order, each named by its id
        here (``ids``), so results read the same, rows in the new order. ``"hubs"``: high
        out-degrees first, grouped by their power of two, in this graph's order within a
        group (:func:`~hpgraph.graph.hub_order.hub_numbered`), which speeds up the random
        reads of PageRank, SSSP and BFS on a skewed graph with no view beside it. Nothing
        is cached here: drop this graph to hold one copy of the edges."""
        from hpgraph.graph.hub_order import hub_numbered

        if order != "hubs":
            raise InvalidArgumentError(f"renumbered: order must be 'hubs', got {order!r}")
        return hub_numbered(self, threads)

    def derived(self, key, build):
        """A cached array derived from this (immutable) graph: ``build()`` runs once."""
        if key not in self._derived:
            value = build()
            if isinstance(value, np.ndarray):
                value.flags.writeable = False
            self._derived[key] = value
        return self._derived[key]

    def memory_bytes(self) -> int:
        """Bytes held by the CSR arrays (and in-edges if built)."""
        total = self.indptr.nbytes + self.indices.nbytes
        total += 0 if self.weights is None else self.weights.nbytes
        if self._in is not None and self.directed:
            total += sum(a.nbytes for a in self._in if a is not None)
        if isinstance(self.ids, np.ndarray) and self.ids.dtype != object:
            total += self.ids.nbytes
        return int(total)

    # ------------------------------------------------------------------ ids
    def user_ids(self) -> np.ndarray:
        """The input's id of every internal vertex, as an array."""
        if self.ids is None:
            return np.arange(self.n, dtype=np.int64)
        return np.asarray(self.ids)

    def vertex_index(self, user_id) -> int:
        """Internal id of a vertex named by the input's id; raises if unknown."""
        if self.ids is None:
            try:
                v = int(user_id)
            except (TypeError, ValueError):
                raise InvalidArgumentError(
                    f"unknown vertex {user_id!r}: this graph's ids are integers 0..{self.n - 1}"
                ) from None
            if not 0 <= v < self.n:
                raise InvalidArgumentError(
                    f"unknown vertex {user_id!r}: this graph's ids are 0..{self.n - 1}"
                )
            return v
        ids = np.asarray(self.ids)
        if self._id_index is None:
            # sorted integer ids (every reader's) need no table; other integer ids (a
            # renumbered graph's) an argsort, 8 B per vertex; strings a dict
            if ids.dtype.kind not in "iu":
                self._id_index = {k: i for i, k in enumerate(ids.tolist())}
            elif bool((ids[1:] > ids[:-1]).all()):
                self._id_index = _SORTED
            else:
                self._id_index = np.argsort(ids, kind="stable")
        if self._id_index is _SORTED:
            return _sorted_index(ids, user_id)
        if isinstance(self._id_index, np.ndarray):
            return _sorted_index(ids, user_id, self._id_index)
        key = user_id
        if key not in self._id_index and isinstance(user_id, str):
            try:
                key = int(user_id)
            except ValueError:
                pass
        if key not in self._id_index:
            raise InvalidArgumentError(f"unknown vertex {user_id!r}: not in this graph")
        return self._id_index[key]

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        w = ", weighted" if self.weighted else ""
        name = f" {self.name!r}" if self.name else ""
        return f"<Graph{name} {kind}{w}: {self.n} vertices, {self.num_edges} edges>"


@njit(**NUMBA_FLAGS)
def count_self_loops(indptr, indices, lo=0):
    """Self-loops in the rows of ``indptr`` (``indices`` holding those rows' entries from
    ``indptr[0]`` on), row i being vertex ``lo + i``: a whole graph, or a part's own rows."""
    e0 = indptr[0]
    c = 0
    for i in range(indptr.shape[0] - 1):
        for k in range(indptr[i] - e0, indptr[i + 1] - e0):
            if indices[k] == lo + i:
                c += 1
    return c
