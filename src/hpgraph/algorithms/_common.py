"""Shared plumbing of the algorithm front ends (argument checks, result assembly)."""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError, InvalidGraphError
from hpgraph.graph.csr import Graph
from hpgraph.result import VertexResult

__all__ = ["source_index", "finish_result", "check_graph", "check_weights"]


def check_graph(graph):
    if not isinstance(graph, Graph):
        raise InvalidArgumentError(f"expected an hpgraph Graph, got {type(graph).__name__}")


def source_index(graph, source) -> int:
    """Internal id of a source vertex named in the input's ids."""
    check_graph(graph)
    if graph.n == 0:
        raise InvalidArgumentError("the graph has no vertices, so no source vertex exists")
    return graph.vertex_index(source)


def check_weights(graph, what: str):
    """Weights must be finite and non-negative (SSSP, Graph500 kernel 3)."""
    w = graph.weights
    if w is None or w.size == 0:
        return
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        u = int(np.searchsorted(graph.indptr, k, side="right") - 1)
        a, b = graph.user_ids()[[u, int(graph.indices[k])]].tolist()  # Python values
        raise InvalidGraphError(
            f"{what} needs finite, non-negative edge weights; edge {a!r} -> {b!r} has "
            f"weight {float(w[k])!r}"
        )


def finish_result(name, graph, columns, job, meta=None, id_columns=()):
    meta = dict(meta or {})
    if job is not None:
        meta.setdefault("supersteps", job.supersteps)
    return VertexResult(
        algorithm=name,
        graph=graph,
        columns=columns,
        stats=None if job is None else job.stats,
        meta=meta,
        id_columns=tuple(id_columns),
    )
