"""Single-source shortest paths. Given a graph with non-negative weights (1 per edge when
unweighted) and a source, returns every vertex's distance (inf if unreachable) and a
shortest-path-tree parent (-1 if unreachable; the source is its own parent).

``dtype="float32"`` keeps distances in single precision, as the GAP reference keeps
int32 ones: each weight is rounded to float32 and added in float32
(:func:`~hpgraph.algorithms.sssp_tree.add_weight`); the distance column is then float32.
Half the bytes of the distance array, but the same cache line per random read: 8-10%
faster on the benchmark graphs (docs/algorithms/sssp.md). No weight is copied.

In either precision the variants give the same distances, bit for bit (all reach the
unique fixpoint of ``dist[v] = min (dist[u] + w)`` with the same rounded additions):

- ``"delta-stepping"`` (Meyer and Sanders; the default, ``"auto"``): on the local runtime
  without checkpoints, the GAP reference's form (:mod:`hpgraph.algorithms.delta_stepping`:
  buckets of width ``delta``, thread-local bins, atomic distance updates, a peer-level
  program); on the other runtimes, and with checkpoints, in bucket-synchronous
  supersteps (the vertex program ``_buckets_compute`` below), with buckets
  :data:`SUPERSTEP_WIDEN` times wider by default, since each superstep costs an exchange.
- ``"bellman-ford"``: the vertex program of the Pregel paper. A vertex whose distance
  improved sends ``distance + w`` along each out-edge; the edge function is applied
  during delivery and the min combiner keeps one value per receiver, so no per-edge
  message is stored.

Bucket-synchronous supersteps: a vertex keeps [distance, pending]; an improved distance
makes it pending. A pending vertex in the bucket being processed relaxes its edges (the
same send as Bellman-Ford's); one in a later bucket stays awake and offers its bucket to a
min aggregator. The bucket being processed stays while its vertices send, and then moves
to the lowest offered: the buckets of the shared-memory form, a superstep per light
phase, an extra one per bucket to learn the next. On uniform 1M/16M (2 MPI ranks) it
sent 38.5M messages where Bellman-Ford sent 206.9M, and took 1.26 s against 6.07 s.

Parents are recovered afterwards (:mod:`hpgraph.algorithms.sssp_tree`): the smallest
in-neighbour u with dist[u] < dist[v] and dist[u] + w(u, v) == dist[v] (exact, since
dist[v] was computed as that very sum); the shared-memory delta-stepping finds them in its
peers.
"""

from __future__ import annotations

import numpy as np

from hpgraph.algorithms._common import (
    check_weights,
    finish_result,
    per_precision,
    precision,
    source_index,
)
from hpgraph.algorithms._order import run_order, shared_memory
from hpgraph.algorithms.sssp_tree import add_weight, parents, parents_part
from hpgraph.engine import run
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


#: Bellman-Ford in each precision (float32: distances and messages, each weight added as
#: a float32)
_PROGRAMS = per_precision(
    _sssp_compute,
    "sssp",
    combiner="min",
    edge_message=_plus_weight,
    params=("source",),
    initial=np.inf,
)
SSSP = _PROGRAMS["float64"]


# ----------------------------------------------- bucket-synchronous delta-stepping
# value row: [distance, pending]: pending (1) when the distance improved and its edges
# are not relaxed yet; aggregators: 0, the lowest bucket of the vertices left pending;
# 1, the bucket relaxed (the lowest, when several)


def _buckets_compute(ctx, v):
    row = ctx.value[v]
    if ctx.superstep == 0:
        if v == np.int64(ctx.params[0]):
            row[0] = 0.0
            ctx.send_along_edges(v, row[0])
            ctx.aggregate(1, 0.0)
        ctx.vote_to_halt(v)
        return
    if ctx.has_message(v):
        m = ctx.message(v)
        if m < row[0]:
            row[0] = m
            row[1] = 1
    if row[1] == 0:
        ctx.vote_to_halt(v)
        return
    b = np.float64(np.int64(row[0] / ctx.params[1]))  # as delta-stepping numbers buckets
    if b <= min(ctx.aggregated(0), ctx.aggregated(1)):  # the bucket being processed
        row[1] = 0
        ctx.send_along_edges(v, row[0])
        ctx.aggregate(1, b)
        ctx.vote_to_halt(v)
    else:  # awake until its bucket comes
        ctx.aggregate(0, b)


_BUCKETS = per_precision(
    _buckets_compute,
    "sssp_buckets",
    vector=2,
    combiner="min",
    edge_message=_plus_weight,
    aggregators=("min", "min"),
    params=("source", "delta"),
    initial=(np.inf, 0.0),
    dense=False,
)


VARIANTS = ("auto", "delta-stepping", "bellman-ford")
#: bucket-synchronous delta-stepping's default width, in widths of the shared-memory
#: default (:func:`~hpgraph.algorithms.delta_stepping.default_delta`). 2 MPI ranks,
#: parts, median of 3 (2026-12-08): uniform 1M/16M 2.81 s at 1x (337 supersteps), 2.00 s
#: at 4x, 1.26 s at 16x (56), 3.20 s at 64x, Bellman-Ford 6.07 s (33 supersteps, 6.4
#: times the messages); Kronecker 20: 4.00, 2.66, 2.57 and 2.75 s, Bellman-Ford 2.67 s
SUPERSTEP_WIDEN = 16


def _part_mean_weight(part):
    """The mean weight of the whole graph a part belongs to, the same on every rank (a
    sum over the ranks' own edges)."""
    from mpi4py import MPI

    w = part.own_weights
    total = part.comm.allreduce(float(w.sum()) if w is not None else 0.0, op=MPI.SUM)
    return total / max(part.num_stored_edges, 1)


def sssp(graph, source, *, variant="auto", delta=None, dtype="float64", order="auto",
         threads=None, runtime=None, progress=False, checkpoint=None):  # fmt: skip
    """Distance and parent of every vertex, from ``source`` (an id of the input), by
    ``variant`` (see the module docstring); ``dtype``: ``"float64"`` (default) or
    ``"float32"`` (single-precision distances, as the module docstring says); ``delta``:
    delta-stepping's bucket width (default
    :func:`~hpgraph.algorithms.delta_stepping.default_delta`, times
    :data:`SUPERSTEP_WIDEN` in supersteps); ``order``: the numbering it runs in
    (:mod:`hpgraph.algorithms._order`; ``"auto"``: the hub-grouped view on skewed graphs;
    a parent is then the smallest tight in-neighbour in the view's numbering);
    ``progress`` shows the supersteps (the shared-memory delta-stepping runs without a
    progress line); ``checkpoint``: superstep checkpoints (delta-stepping then runs in
    bucket-synchronous supersteps)."""
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
        variant = "delta-stepping"
    # delta-stepping by threads sharing memory (the peer-level program), or in
    # bucket-synchronous supersteps (the vertex program: other runtimes, checkpoints)
    peers = variant == "delta-stepping" and shared_memory(runtime) and checkpoint is None
    on = run_order(graph, order, runtime=runtime, checkpoint=checkpoint, threads=threads)
    meta = {"source": source, "variant": variant, "dtype": key, "order": on.name}
    g, s = on.graph, on.index(s)  # the graph run on, and the source's number there
    if variant == "delta-stepping":
        if is_part(g):  # every rank the same width: the whole graph's weights
            mean_weight = _part_mean_weight(g)
        if delta is None:  # supersteps cost an exchange each: wider buckets, fewer of them
            delta = default_delta(g, mean_weight) * (1 if peers else SUPERSTEP_WIDEN)
        delta = float(delta)
        if not delta > 0 or not np.isfinite(delta):
            raise InvalidArgumentError(f"delta must be a positive number, got {delta!r}")
        meta["delta"] = delta
    if peers:
        from hpgraph.algorithms.delta_stepping import delta_stepping

        dist, parent, job, rounds = delta_stepping(
            g, s, delta=delta, threads=threads, runtime=runtime, heaviest=heaviest,
            dtype=np.dtype(key),
        )  # fmt: skip
        meta.update(rounds=rounds, supersteps=len(job.stats.supersteps))
    else:
        if variant == "delta-stepping":
            program, params = _BUCKETS[key], {"source": s, "delta": delta}
        else:
            program, params = _PROGRAMS[key], {"source": s}
        job = run(
            program, g, params=params, threads=threads, runtime=runtime, progress=progress,
            checkpoint=checkpoint,
        )  # fmt: skip
        dist = job.values if job.values.ndim == 1 else np.ascontiguousarray(job.values[:, 0])
        w = g.weights if g.weights is not None else np.empty(0, dtype=np.float64)
        if is_part(g):
            parent = parents_part(g, dist, s)
        else:
            parent = parents(g.indptr, g.indices, w, dist, s)
        meta["supersteps"] = len(job.stats.supersteps)
    meta["reached"] = int(np.isfinite(dist).sum())
    return finish_result(
        "sssp", graph, {"distance": on.values(dist), "parent": on.ids(parent)}, job, meta=meta,
        id_columns=("parent",),
    )  # fmt: skip
