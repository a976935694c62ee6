"""What every algorithm returns: per-vertex columns in internal-id order, reported in the
input's ids on the way out (``to_dict``, the writers in :mod:`hpgraph.io`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["VertexResult"]


@dataclass
class VertexResult:
    """Per-vertex results of an algorithm on ``graph``.

    ``columns`` maps a column name to an array of length ``graph.n`` indexed by internal
    id (e.g. ``{"depth": ..., "parent": ...}`` for BFS); ``stats`` is the engine's
    :class:`~hpgraph.engine.stats.JobStats` (``None`` for kernels not run by the engine);
    ``meta`` holds scalars worth reporting (source vertex, iterations, ...).
    Columns whose values are internal vertex ids (``parent``, ``component`` ...) are named in
    ``id_columns`` and translated to the input's ids on output.
    """

    algorithm: str
    graph: Any
    columns: dict[str, np.ndarray]
    stats: Any = None
    meta: dict[str, Any] = field(default_factory=dict)
    id_columns: tuple[str, ...] = ()

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def vertex_ids(self) -> np.ndarray:
        """The input's id of each row (on a part holding only its own vertices' ids, an
        :class:`~hpgraph.graph.part.AskedIds`: indexing it is collective)."""
        return self.graph.user_ids()

    def output_columns(self, rows: tuple[int, int] | None = None) -> dict:
        """Columns ready to write: ``vertex`` first, id-valued columns in the input's ids
        (a negative internal id, meaning "none", stays as it is for integer ids and becomes
        an empty string for string ids). ``rows``: ``(lo, hi)``, only those rows.

        On a part holding only its own vertices' ids (a
        :class:`~hpgraph.graph.part.PartGraph` with ``own_ids``) this is collective:
        every rank calls it, each with the rows it wants (an empty range only answers
        the others), and the ids come from their owners, string ids as arrow arrays."""
        graph = self.graph
        if getattr(graph, "own_ids", None) is not None:
            return self._asked_columns(*(rows or (0, graph.n)))
        ids = self.vertex_ids()
        cut = slice(None) if rows is None else slice(*rows)
        out = {"vertex": ids[cut]}
        for name, col in self.columns.items():
            col = col[cut]
            if name in self.id_columns:
                col = _to_user_ids(ids, col)
            out[name] = col
        return out

    def _asked_columns(self, lo: int, hi: int) -> dict:
        """:meth:`output_columns` of rows ``[lo, hi)`` of a result on a part, every id
        asked of its owner (each distinct one once)."""
        graph = self.graph
        out = {"vertex": graph.names_of(np.arange(lo, hi, dtype=np.int64))}
        for name, col in self.columns.items():
            col = np.asarray(col[lo:hi])
            if name in self.id_columns:
                valid = col >= 0
                named, at = np.unique(col[valid], return_inverse=True)
                col = _placed(graph.names_of(named), at, valid)
            out[name] = col
        return out

    def to_dict(self, column: str | None = None) -> dict:
        """``{user id: value}`` for one column (the only one when not named; collective
        on a part holding only its own vertices' ids, as :meth:`output_columns`)."""
        if column is None:
            if len(self.columns) != 1:
                raise ValueError(f"name one of the columns {list(self.columns)}")
            column = next(iter(self.columns))
        cols = self.output_columns()
        keys, col = cols["vertex"], cols[column]
        return dict(zip(_listed(keys), _listed(col), strict=True))


def _listed(col) -> list:
    """A column (numpy or arrow) as a list of Python values."""
    return col.to_pylist() if hasattr(col, "to_pylist") else col.tolist()


def _placed(names, at, valid):
    """The ids ``names[at]`` in the rows where ``valid``, "none" elsewhere (-1 for
    integer ids, an empty string for string ids, as :func:`_to_user_ids` gives them)."""
    if isinstance(names, np.ndarray):
        out = np.full(valid.shape, -1, dtype=np.int64)
        out[valid] = names[at]
        return out
    import pyarrow as pa
    import pyarrow.compute as pc

    where = np.zeros(valid.shape, dtype=np.int64)
    where[valid] = at
    return pc.fill_null(names.take(pa.array(where, mask=~valid)), "")


def _to_user_ids(ids: np.ndarray, internal: np.ndarray) -> np.ndarray:
    internal = np.asarray(internal)
    valid = internal >= 0
    if ids.dtype.kind in "iu":
        out = np.full(internal.shape, -1, dtype=np.int64)
        out[valid] = ids[internal[valid]]
        return out
    out = np.full(internal.shape, "", dtype=object)
    out[valid] = ids[internal[valid]]
    return out
