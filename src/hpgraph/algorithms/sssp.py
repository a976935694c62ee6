"""Single-source shortest paths. Given a graph with non-negative weights (1 per edge when
unweighted) and a source, returns every vertex's distance (inf if unreachable) and a
shortest-path-tree parent (-1 if unreachable; the source is its own parent).

``dtype="float32"`` keeps distances in single precision, as the GAP reference keeps
int32 ones: each weight is rounded to float32 and added in float32
(:func:`~hpgraph.algorithms.sssp_tree.add_weight`); the distance column is then float32.
Half the bytes of the distance array, whose random reads are most of the relaxation's
cost (docs/algorithms/sssp.md). No weight is copied.

In either precision the two variants give the same distances, bit for bit (both reach
the unique fixpoint of ``dist[v] = min (dist[u] + w)`` with the same rounded additions).
``variant="auto"`` (default) runs delta-stepping on the local runtime and Bellman-Ford on
the others; ``"delta-stepping"`` (:mod:`hpgraph.algorithms.delta_stepping`, the GAP reference's
algorithm: buckets of width ``delta``, thread-local bins, atomic distance updates; shared
memory only) and ``"bellman-ford"`` (the vertex program below) choose.

Vertex program: Bellman-Ford as in the Pregel paper. A vertex whose distance improved
sends ``distance + w`` along each out-edge; the edge function is applied during delivery
and the min combiner keeps one value per receiver, so no per-edge message is stored.
Parents are recovered afterwards (:mod:`hpgraph.algorithms.sssp_tree`): the smallest
in-neighbour u with dist[u] < dist[v] and dist[u] + w(u, v) == dist[v] (exact, since
dist[v] was computed as that very sum); delta-stepping finds them in its peers.
"""

from __future__ import annotations

import numpy as np

from hpgraph.algorithms._common import check_weights, finish_result, precision, source_index
from hpgraph.algorithms._order import run_order, shared_memory
from hpgraph.algorithms.sssp_tree import add_weight, parents, parents_part
from hpgraph.engine import run, vertex_program
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.part import is_part

__all__ = ["sssp"]


def _sssp_compute(ctx, v):
    if ctx.superstep == 0:
        if v == np.int64(ctx.params[0]):
            ctx.value[v] = 0.0
            ctx.send_along_edges(v, 0.0)
    else:
        m = ctx.message(v)
        if m < ctx.value[v]:
            ctx.value[v] = m
            ctx.send_along_edges(v, m)
    ctx.vote_to_halt(v)


def _plus_weight(m, w):
    return add_weight(m, w)  # in the message's precision


def _program(dtype, name):
    return vertex_program(
        _sssp_compute,
        value=dtype,
        message=dtype,
        combiner="min",
        edge_message=_plus_weight,
        params=("source",),
        initial=np.inf,
        name=name,
    )


SSSP = _program(np.float64, "sssp")
#: single precision: float32 distances and messages, each weight added as a float32
SSSP32 = _program(np.float32, "sssp32")
_PROGRAMS = {"float64": SSSP, "float32": SSSP32}


VARIANTS = ("auto", "delta-stepping", "bellman-ford")


def sssp(graph, source, *, variant="auto", delta=None, dtype="float64", order="auto",
         threads=None, runtime=None, progress=False, checkpoint=None):  # fmt: skip
    """Distance and parent of every vertex, from ``source`` (an id of the input), by
    ``variant`` (see the module docstring); ``dtype``: ``"float64"`` (default) or
    ``"float32"`` (single-precision distances, as the module docstring says); ``delta``:
    delta-stepping's bucket width (default
    :func:`~hpgraph.algorithms.delta_stepping.default_delta`); ``order``: the numbering it
    runs in (:mod:`hpgraph.algorithms._order`; ``"auto"``: the hub-grouped
    view on skewed graphs; a parent is then the smallest tight in-neighbour in the view's
    numbering); ``progress`` shows the Bellman-Ford supersteps (delta-stepping runs
    without a progress line); ``checkpoint``: superstep checkpoints of Bellman-Ford
    ("auto" is then bellman-ford)."""
    from hpgraph.algorithms.delta_stepping import default_delta, weight_scan

    s = source_index(graph, source, parts=True)
    key = precision(dtype)
    mean_weight = heaviest = None
    if is_part(graph):  # its own weights, the ranks agreeing on the first bad one
        check_weights(graph, "sssp")
    elif graph.weights is not None and graph.weights.size:
        # one pass (the check, the mean, the largest weight), kept on the (immutable)
        # graph: SSSP from many roots reads the weights once
        bad, total, heaviest = graph.derived(("weight_scan",), lambda: weight_scan(graph.weights))
        if bad >= 0:
            check_weights(graph, "sssp")  # raises, naming the edge
        mean_weight = total / graph.weights.size
    if variant not in VARIANTS:
        raise InvalidArgumentError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    if variant == "auto":
        local = shared_memory(runtime) and checkpoint is None
        variant = "delta-stepping" if local else "bellman-ford"
    if variant == "delta-stepping" and checkpoint is not None:
        raise InvalidArgumentError("checkpoints are taken by 'bellman-ford', not 'delta-stepping'")
    on = run_order(graph, order, runtime=runtime, checkpoint=checkpoint, threads=threads)
    meta = {"source": source, "variant": variant, "dtype": key, "order": on.name}
    g, s = on.graph, on.index(s)  # the graph run on, and the source's number there
    if variant == "delta-stepping":
        if not shared_memory(runtime):
            raise InvalidArgumentError(
                "delta-stepping runs on the local runtime (threads sharing memory); "
                "use variant='bellman-ford' on other runtimes"
            )
        from hpgraph.algorithms.delta_stepping import delta_stepping

        delta = default_delta(g, mean_weight) if delta is None else float(delta)
        if not delta > 0 or not np.isfinite(delta):
            raise InvalidArgumentError(f"delta must be a positive number, got {delta!r}")
        dist, parent, job, rounds = delta_stepping(
            g, s, delta=delta, threads=threads, runtime=runtime, heaviest=heaviest,
            dtype=np.dtype(key),
        )  # fmt: skip
        meta.update(delta=delta, rounds=rounds, supersteps=len(job.stats.supersteps))
    else:
        job = run(
            _PROGRAMS[key], g, params={"source": s}, threads=threads, runtime=runtime,
            progress=progress, checkpoint=checkpoint,
        )  # fmt: skip
        dist = job.values
        w = g.weights if g.weights is not None else np.empty(0, dtype=np.float64)
        if is_part(g):
            parent = parents_part(g, dist, s)
        else:
            parent = parents(g.indptr, g.indices, w, dist, s)
    meta["reached"] = int(np.isfinite(dist).sum())
    return finish_result(
        "sssp", graph, {"distance": on.values(dist), "parent": on.ids(parent)}, job, meta=meta,
        id_columns=("parent",),
    )  # fmt: skip
