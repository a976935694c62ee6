"""Weakly connected components. Given a graph, returns for every vertex the smallest
internal id in its component (edge directions ignored, Graphalytics WCC).

Two variants give the same labels. ``variant="afforest"`` (default) is the GAP reference's
algorithm, a peer-level program with atomic hooking and neighbour sampling
(:mod:`hpgraph.algorithms.afforest`): its work is about two neighbours per vertex plus
the edges outside the giant component, not one pass per superstep over the diameter.
``variant="hashmin"`` is the vertex program below, the example of a vertex-centric
kernel.

Vertex program: HashMin label propagation (Pregel paper; Yan et al., VLDB'14): every
vertex starts with its own id and forwards any smaller label it hears; the engine's min
combiner keeps one message per receiver. Supersteps grow with the diameter. The first
round needs no messages: a vertex's neighbours' ids are its neighbours' first labels, and
adjacency lists are sorted, so the smallest is the first entry; only a vertex that found
a smaller label than its own sends.
"""

from __future__ import annotations

import numpy as np

from hpgraph.algorithms._common import check_graph, finish_result
from hpgraph.engine import run, vertex_program
from hpgraph.errors import InvalidArgumentError
from hpgraph.result import VertexResult

__all__ = ["wcc"]


def _wcc_compute(ctx, v):
    if ctx.superstep == 0:
        label = v
        if ctx.out_degree(v) > 0:
            label = min(v, ctx.out_edges(v)[0])  # rows are sorted: the smallest neighbour
        ctx.value[v] = label
        if label < v:
            ctx.send_to_all(v, label)
    else:
        m = ctx.message(v)
        if m < ctx.value[v]:
            ctx.value[v] = m
            ctx.send_to_all(v, m)
    ctx.vote_to_halt(v)


WCC = vertex_program(
    _wcc_compute, value=np.int64, message=np.int64, combiner="min", initial=-1, name="wcc"
)


VARIANTS = ("auto", "afforest", "hashmin")


def _count(comp):
    """Components of a labelling by smallest members: the vertices labelled by themselves
    (a linear pass; ``np.unique`` would sort, 2x the whole kernel at Kronecker 20)."""
    return int(np.count_nonzero(comp == np.arange(comp.shape[0])))


def wcc(graph, *, variant="auto", threads=None, runtime=None, progress=False, checkpoint=None):
    """Component label of every vertex (the smallest member's internal id), by
    ``variant`` "afforest" (default; "auto" is the same) or "hashmin" (the vertex
    program); ``progress`` shows the vertex program's supersteps (Afforest runs eight
    short phases). ``checkpoint``: superstep checkpoints and resume
    (docs/checkpoints.md), which the vertex program takes: "auto" is then "hashmin"."""
    check_graph(graph, parts=True)
    if variant not in VARIANTS:
        raise InvalidArgumentError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    if variant == "auto":
        variant = "afforest" if checkpoint is None else "hashmin"
    if variant == "afforest" and checkpoint is not None:
        raise InvalidArgumentError("checkpoints are taken by variant 'hashmin', not 'afforest'")
    if variant == "afforest":
        from hpgraph.algorithms.afforest import afforest_components

        comp, job = afforest_components(graph, threads=threads, runtime=runtime)
        meta = {"components": _count(comp), "variant": variant}
        meta["supersteps"] = len(job.stats.supersteps)
        return VertexResult(
            "wcc", graph, {"component": comp}, stats=job.stats, meta=meta,
            id_columns=("component",),
        )  # fmt: skip
    job = run(
        WCC,
        graph.symmetrized(),
        threads=threads,
        runtime=runtime,
        progress=progress,
        checkpoint=checkpoint,
    )
    comp = job.values
    return finish_result(
        "wcc",
        graph,
        {"component": comp},
        job,
        meta={"components": _count(comp), "variant": variant},
        id_columns=("component",),
    )
