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
        """The input's id of each row."""
        return self.graph.user_ids()

    def output_columns(self) -> dict[str, np.ndarray]:
        """Columns ready to write: ``vertex`` first, id-valued columns in the input's ids
        (a negative internal id, meaning "none", stays as it is for integer ids and becomes
        an empty string for string ids)."""
        ids = self.vertex_ids()
        out = {"vertex": ids}
        for name, col in self.columns.items():
            if name in self.id_columns:
                col = _to_user_ids(ids, col)
            out[name] = col
        return out

    def to_dict(self, column: str | None = None) -> dict:
        """``{user id: value}`` for one column (the only one when not named)."""
        if column is None:
            if len(self.columns) != 1:
                raise ValueError(f"name one of the columns {list(self.columns)}")
            column = next(iter(self.columns))
        col = self.output_columns()[column]
        return dict(zip(self.vertex_ids().tolist(), col.tolist(), strict=True))


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
