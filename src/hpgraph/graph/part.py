"""One process's part of a graph: the rows of its own vertex range, and nothing else.

On the MPI runtime a :class:`PartGraph` is what a rank holds of a graph of ``n``
vertices (docs/runtimes.md, "Partitioned ranks"): the out-rows of its own range
``[lo, hi)`` (and, for pull, the in-rows of the same range, built once by an exchange),
with vertex ids global. Memory per rank: 8 B per own vertex (``indptr``), 4 B per own
stored edge (int32 ids; 8 B more with weights), the same again for in-rows of a directed
graph, and the input's ids of its own vertices (:class:`OwnIds`: 8 B per own vertex for
integer ids, 8 + L for string ids of L bytes, none for ids 0..n-1); the ids of other
ranks' vertices are asked of their owners (:meth:`PartGraph.vertex_index`,
:meth:`PartGraph.names_of`: collective).

Kernels index graph and state arrays with global ids, so the arrays a part exposes are
*windows* (:func:`window`): an array of the global length whose rows outside the own
range do not exist. A kernel (or numpy expression) must read only its own rows: the
engine's kernels do (each part walks its own range and its own vertices' edges), which is
what lets a vertex program run unchanged on a part. Anything else (a whole-array ``np.diff``
on ``indptr``, a reference check over all vertices) must use the whole graph.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from hpgraph.errors import InvalidArgumentError, agreed
from hpgraph.graph.csr import Graph, _sorted_index, index_dtype
from hpgraph.graph.partition import range_cuts

__all__ = ["PartGraph", "OwnIds", "AskedIds", "window", "is_part"]


class _Window:
    """What :func:`window` makes an array of (numpy keeps it as the array's base, and
    it keeps the owned memory alive)."""

    def __init__(self, local: np.ndarray, lo: int, rows: int, readonly: bool):
        self.local = local
        row = local.dtype.itemsize * int(np.prod(local.shape[1:], dtype=np.int64))
        address = local.ctypes.data - lo * row
        if address <= 0:
            raise ValueError("window: address out of range")
        self.__array_interface__ = {
            "shape": (rows, *local.shape[1:]),
            "typestr": local.dtype.str,
            "data": (address, readonly),
            "version": 3,
        }


def window(local: np.ndarray, lo: int, rows: int, readonly: bool | None = None) -> np.ndarray:
    """An array of ``rows`` rows whose rows ``[lo, lo + len(local))`` are ``local``'s
    memory (no copy) and whose other rows must never be touched: global indexing of a
    part's own rows. ``local`` must be C-contiguous; ``readonly`` defaults to its own
    flag. Slicing ``[lo:lo + len(local)]`` gives back a view of ``local``."""
    local = np.ascontiguousarray(local)
    if not (0 <= lo and lo + local.shape[0] <= rows):
        raise ValueError(f"window: rows [{lo}, {lo + local.shape[0]}) outside [0, {rows})")
    ro = not local.flags.writeable if readonly is None else bool(readonly)
    return np.asarray(_Window(local, lo, rows, ro))


class OwnIds:
    """The input's ids of a part's own vertices ``[lo, lo + len(values))``: string ids as
    one arrow large_string array (offsets and bytes, 8 + L bytes per name, no Python
    objects), integer ids as an int64 array. The whole graph's ids are every rank's
    in rank order, ascending (every reader numbers ids in sorted order)."""

    __slots__ = ("values", "lo")

    def __init__(self, values, lo: int):
        self.values = values
        self.lo = int(lo)

    @property
    def strings(self) -> bool:
        return isinstance(self.values, pa.Array)

    def find(self, user_id) -> int:
        """The internal id of the own vertex named ``user_id``, or -1."""
        if not self.strings:
            try:
                return self.lo + _sorted_index(self.values, user_id)
            except InvalidArgumentError:
                return -1
        if not isinstance(user_id, str):
            return -1
        i = pc.index(self.values, pa.scalar(user_id, pa.large_string())).as_py()
        return self.lo + i if i >= 0 else -1

    @classmethod
    def cut(cls, ids, lo: int, hi: int) -> OwnIds | None:
        """The own ids ``ids[lo:hi]`` of a whole graph's ``ids``, or None where they are
        not integers or strings in ascending order (only a graph built with ids by hand:
        a part then keeps them whole, as CDLP's ties order labels by them)."""
        if ids is None:
            return None
        a = np.asarray(ids)
        try:
            ascending = a.shape[0] < 2 or bool(np.all(a[1:] > a[:-1]))
        except TypeError:  # mixed kinds
            return None
        if not ascending:
            return None
        if a.dtype.kind in "iu":
            return cls(a[lo:hi].astype(np.int64), lo)
        try:
            return cls(pa.array(a[lo:hi], type=pa.large_string()), lo)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            return None


class AskedIds:
    """:meth:`PartGraph.user_ids` of a part holding only its own vertices' ids: indexing
    asks the owners (collective: every rank indexes it alike, e.g. a report run on every
    rank); ``np.asarray`` and ``tolist`` gather every id on every rank."""

    def __init__(self, part: PartGraph):
        self._part = part
        self.shape = (part.n,)
        self.dtype = np.dtype(object) if part.own_ids.strings else np.dtype(np.int64)

    def __len__(self):
        return self._part.n

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            v = int(key) + (self._part.n if key < 0 else 0)
            return self[np.array([v])].tolist()[0]
        if isinstance(key, slice):
            key = np.arange(self._part.n)[key]
        got = self._part.names_of(np.asarray(key, dtype=np.int64))
        if isinstance(got, pa.Array):
            return np.asarray(got.to_numpy(zero_copy_only=False), dtype=object)
        return got

    def __array__(self, dtype=None, copy=None):
        whole = self[slice(None)]
        return whole if dtype is None else whole.astype(dtype)

    def tolist(self) -> list:
        return self[slice(None)].tolist()


def is_part(graph) -> bool:
    """Whether ``graph`` is one process's part (a :class:`PartGraph`)."""
    return isinstance(graph, PartGraph)


class PartGraph:
    """The rows ``[lo, hi)`` of a graph of ``n`` vertices, as one process holds them.

    ``indptr``, ``indices`` and ``weights`` are windows (:func:`window`) of the whole
    graph's arrays: ``indptr[v]`` for ``lo <= v <= hi`` and ``indices[k]`` for the own
    rows' edges hold the whole graph's values; ``own_indptr``/``own_indices``/
    ``own_weights`` are the same memory indexed from 0. ``rank_offsets`` (length ranks +
    1) are every process's ranges; ``rank`` is this one; ``comm`` their communicator.
    Build with
    :meth:`from_graph` (cut from a whole graph) or :func:`hpgraph.runtimes.mpi.ingest.
    load_graph_mpi` with ``partitioned=True`` (read in parallel, never whole)."""

    __slots__ = (
        "n",
        "directed",
        "lo",
        "hi",
        "rank",
        "rank_offsets",
        "own_indptr",
        "own_indices",
        "own_weights",
        "indptr",
        "indices",
        "weights",
        "ids",
        "own_ids",
        "name",
        "_stored",
        "_edges",
        "_in",
        "_in_builder",
        "_id_index",
        "_derived",
        "comm",
    )

    def __init__(
        self,
        n,
        rank_offsets,
        rank,
        indptr,
        indices,
        weights=None,
        *,
        directed=True,
        stored_edges,
        edges,
        ids=None,
        own_ids=None,
        name="",
        in_builder=None,
        comm=None,
    ):
        self.n = int(n)
        self.rank_offsets = np.asarray(rank_offsets, dtype=np.int64)
        self.rank = int(rank)
        self.lo = int(self.rank_offsets[rank])
        self.hi = int(self.rank_offsets[rank + 1])
        indptr = np.ascontiguousarray(indptr, dtype=np.int64)
        if indptr.shape[0] != self.hi - self.lo + 1:
            raise InvalidArgumentError(
                f"a part of rows [{self.lo}, {self.hi}) needs {self.hi - self.lo + 1} "
                f"indptr entries, got {indptr.shape[0]}"
            )
        indices = np.ascontiguousarray(indices, dtype=index_dtype(self.n))
        if indices.shape[0] != indptr[-1] - indptr[0]:
            raise InvalidArgumentError("the part's indptr does not match its edge targets")
        e0 = int(indptr[0])
        for a in (indptr, indices, weights):
            if a is not None:
                a.flags.writeable = False
        self.own_indptr, self.own_indices, self.own_weights = indptr, indices, weights
        self.indptr = window(indptr, self.lo, self.n + 1)
        self.indices = window(indices, e0, int(stored_edges))
        self.weights = None if weights is None else window(weights, e0, int(stored_edges))
        self.directed = bool(directed)
        #: every vertex's id, kept only where ``own_ids`` cannot hold them (None else)
        self.ids = ids
        #: the own vertices' ids (:class:`OwnIds`), or None
        self.own_ids = own_ids
        self.name = name
        self._stored = int(stored_edges)
        self._edges = int(edges)
        self._in = None
        self._in_builder = in_builder
        self._id_index = None
        self._derived = {}
        #: the communicator of the processes holding the other parts (an mpi4py
        #: ``Comm``; None for a part cut without one): views derived from parts reduce
        #: their counts over it
        self.comm = comm

    @classmethod
    def from_graph(cls, graph: Graph, ranks: int, rank: int, comm=None) -> PartGraph:
        """Rank ``rank``'s part of ``graph`` split into ``ranks`` ranges balanced by
        ``8 * vertices + edges`` (copies of its own rows, so the whole graph can be
        dropped; one rank shares the graph's arrays). For tests and for graphs generated
        or loaded whole on every rank."""
        if not 0 <= rank < ranks:
            raise InvalidArgumentError(f"rank must lie in [0, {ranks}), got {rank}")
        offsets = range_cuts(graph.indptr, ranks)
        lo, hi = int(offsets[rank]), int(offsets[rank + 1])
        own = OwnIds.cut(graph.ids, lo, hi) if comm is not None else None

        def cut(ip, ix, w):
            if (lo, hi) == (0, graph.n):  # one rank: the graph's own (read-only) arrays
                return ip, ix, w
            a, b = int(ip[lo]), int(ip[hi])
            return ip[lo : hi + 1].copy(), ix[a:b].copy(), None if w is None else w[a:b].copy()

        def in_rows(part):
            return _in_window(part, *cut(*graph.in_csr()))

        part = cls(
            graph.n,
            offsets,
            rank,
            *cut(graph.indptr, graph.indices, graph.weights),
            directed=graph.directed,
            stored_edges=graph.num_stored_edges,
            edges=graph.num_edges,
            ids=graph.ids if own is None else None,
            own_ids=own,
            name=graph.name,
            in_builder=in_rows,
            comm=comm,
        )
        return part

    # ------------------------------------------------------------------ properties
    @property
    def num_vertices(self) -> int:
        return self.n

    @property
    def num_stored_edges(self) -> int:
        """Stored edges of the whole graph (an undirected non-loop edge counts twice)."""
        return self._stored

    @property
    def num_edges(self) -> int:
        """Edges of the whole graph as the user counts them."""
        return self._edges

    @property
    def weighted(self) -> bool:
        return self.own_weights is not None

    def in_csr(self):
        """(indptr, indices, weights) windows of the own vertices' in-rows (sorted by
        source), built on first use (an exchange between the processes); the out-rows
        for an undirected graph."""
        if not self.directed:
            return self.indptr, self.indices, self.weights
        if self._in is None:
            if self._in_builder is None:
                raise InvalidArgumentError("this part cannot build its in-edges")
            self._in = self._in_builder(self)
        return self._in

    def symmetrized(self) -> PartGraph:
        """This part of the whole graph's :meth:`Graph.symmetrized`: own out- and
        in-rows merged (cached); self for an undirected part."""
        if not self.directed:
            return self
        from hpgraph.graph.views import symmetrized_part

        return self.derived("symmetrized", lambda: symmetrized_part(self))

    def derived(self, key, build):
        """A cached value derived from this (immutable) part: ``build()`` runs once."""
        return Graph.derived(self, key, build)

    def memory_bytes(self) -> int:
        """Bytes of this part's own rows (and in-rows if built)."""
        own = [self.own_indptr, self.own_indices, self.own_weights]
        if self._in is not None and self.directed:
            own += [a.base.local if a is not None else None for a in self._in]
        return int(sum(a.nbytes for a in own if a is not None))

    def user_ids(self):
        """Every vertex's id in the input: an array, or where the part holds only its own
        vertices' ids an :class:`AskedIds` whose indexing is collective."""
        if self.own_ids is None:
            return Graph.user_ids(self)
        return AskedIds(self)

    def names_of(self, vertices):
        """The input's ids of ``vertices`` (internal ids): asked of their owners where the
        part holds only its own (collective: every rank calls it, each with its own
        vertices; arrow large_string for string ids, else int64), else read from the
        ids held."""
        vertices = np.asarray(vertices, dtype=np.int64)
        if self.own_ids is None:
            return Graph.user_ids(self)[vertices]
        from hpgraph.runtimes.mpi.comm import load_mpi
        from hpgraph.runtimes.mpi.names import fetch

        return fetch(self.comm, load_mpi(), self.own_ids.values, self.rank_offsets, vertices)

    def vertex_index(self, user_id) -> int:
        """Internal id of the vertex named ``user_id``. Where the part holds only its own
        vertices' ids, every rank looks in its own and the ranks agree (collective); an
        unknown id raises the same one-line error on every rank."""
        if self.own_ids is None:
            return Graph.vertex_index(self, user_id)
        found = max(self.comm.allgather(self.own_ids.find(user_id)))
        if found < 0:
            raise agreed(InvalidArgumentError(f"unknown vertex {user_id!r}: not in this graph"))
        return found

    def __repr__(self):
        kind = "directed" if self.directed else "undirected"
        w = ", weighted" if self.weighted else ""
        return (
            f"<PartGraph {kind}{w}: rows {self.lo}..{self.hi} of {self.n} vertices, "
            f"{self.own_indices.shape[0]} of {self._stored} stored edges>"
        )


def _in_window(part: PartGraph, indptr, indices, weights):
    """Windows over a part's own in-rows (``indptr`` holds the whole in-CSR's offsets
    for rows ``[lo, hi]``), read-only as the out-rows are."""
    e0, m = int(indptr[0]), part.num_stored_edges
    for a in (indptr, indices, weights):
        if a is not None:
            a.flags.writeable = False
    return (
        window(indptr, part.lo, part.n + 1),
        window(indices, e0, m),
        None if weights is None else window(weights, e0, m),
    )
