"""Shared plumbing of the algorithm front ends (argument checks, result assembly)."""

from __future__ import annotations

from hpgraph.algorithms.entries._common import PRECISIONS
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.csr import Graph
from hpgraph.graph.part import PartGraph
from hpgraph.graph.views import check_weights
from hpgraph.result import VertexResult

__all__ = ["source_index", "finish_result", "check_graph", "check_weights"]


def precision(dtype) -> str:
    """``"float64"`` or ``"float32"`` from a name, a numpy type or a dtype; a clear error
    for anything else."""
    import numpy as np

    key = np.dtype(dtype).name if isinstance(dtype, type | np.dtype) else dtype
    if not isinstance(key, str) or key not in PRECISIONS:
        raise InvalidArgumentError(f"dtype must be float64 or float32, got {dtype!r}")
    return key


def per_precision(compute, name, *, vector=None, **options) -> dict:
    """One vertex program per precision of :data:`PRECISIONS`, keyed by it: the same
    ``compute`` with values (rows of ``vector`` when given) and messages of that type,
    the float32 one named ``name`` + "32"; ``options``: the rest of
    :func:`~hpgraph.engine.vertex_program`'s."""
    import numpy as np

    from hpgraph.engine import vertex_program

    programs = {}
    for key in PRECISIONS:
        dtype = np.dtype(key)
        programs[key] = vertex_program(
            compute,
            value=dtype if vector is None else (dtype, vector),
            message=dtype,
            name=name if key == "float64" else f"{name}32",
            **options,
        )
    return programs


def check_graph(graph, parts=False):
    """Raise unless ``graph`` is a Graph (or, with ``parts``, a partitioned one: the
    kernels that run on one process's rows alone say so)."""
    if isinstance(graph, PartGraph):
        if not parts:
            raise InvalidArgumentError(
                "this algorithm needs the whole graph on every rank: load it without "
                "partitioned=True (the CLI does so for it)"
            )
        return
    if not isinstance(graph, Graph):
        raise InvalidArgumentError(f"expected an hpgraph Graph, got {type(graph).__name__}")


def source_index(graph, source, parts=False) -> int:
    """Internal id of a source vertex named in the input's ids."""
    check_graph(graph, parts)
    if graph.n == 0:
        raise InvalidArgumentError("the graph has no vertices, so no source vertex exists")
    return graph.vertex_index(source)


def finish_result(name, graph, columns, job, meta=None, id_columns=()):
    meta = dict(meta or {})
    if job is not None and "supersteps" not in meta:
        meta["supersteps"] = job.supersteps
    return VertexResult(
        algorithm=name,
        graph=graph,
        columns=columns,
        stats=None if job is None else job.stats,
        meta=meta,
        id_columns=tuple(id_columns),
    )
