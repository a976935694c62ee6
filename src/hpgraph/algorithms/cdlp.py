"""Community detection by label propagation (CDLP, LDBC Graphalytics). Given a graph and
a number of iterations, returns every vertex's final label: the id of a vertex whose
initial label it carries.

Definition (Graphalytics spec, section "CDLP"; Raghavan, Albert and Kumara 2007, made
deterministic): every vertex starts with its own id as label. In each of a fixed number
of synchronous iterations every vertex takes the label that is most frequent among its
neighbours' labels of the previous iteration, the smallest such label on a tie; a vertex
without neighbours keeps its label. On a directed graph in- and out-neighbours both
count, so the label of a neighbour joined in both directions counts twice. Self-loops
are ignored and parallel edges count once (Graphalytics graphs are simple; this is the
reference LAGraph_cdlp on a 0/1 adjacency matrix).

"Smallest" refers to the input's vertex ids. hpgraph's internal ids follow the input's
integer ids in ascending order whenever the graph was read from a file (the readers sort
the distinct ids) or the ids are 0..n-1; for a graph built with ids in another order the
labels run in the ids' rank order and are mapped back, so ties break exactly as on the
input's ids (strings: by code point).

Vertex program, no combiner: each vertex sends its label along every edge of the simple
view (a directed graph's in- and out-edges merged, a reciprocal pair twice); a receiver
gets the listed labels (``ctx.messages(v)``), sorts them in place and takes the longest
run, the first (smallest) on a tie. Memory: the simple view, derived once per graph
(``graph.derived``; the graph itself when it is undirected and already simple), 8 B per
vertex + 4 B per entry; per superstep one listed message per entry, 4 B (int32 labels
below 2**31 vertices) + 8 B per vertex of message offsets; the engine's ~40 B per vertex.
Time per iteration: O(sum over v of d(v) log d(v)) for the sorts.
"""

from __future__ import annotations

import numpy as np

from hpgraph.algorithms._common import check_graph, finish_result
from hpgraph.engine import run, vertex_program
from hpgraph.errors import InvalidArgumentError, VerificationError
from hpgraph.graph.csr import Graph, index_dtype
from hpgraph.graph.part import is_part
from hpgraph.graph.views import simple_part, simple_rows

__all__ = ["cdlp", "verify_cdlp", "reference_cdlp"]


def _cdlp_compute(ctx, v):
    if ctx.superstep > 0:
        labels = ctx.messages(v)
        k = labels.shape[0]
        if k > 0:
            labels.sort()  # in place: the listed messages are this vertex's alone
            best, best_count, start = labels[0], 0, 0
            for i in range(1, k + 1):
                if i == k or labels[i] != labels[start]:
                    if i - start > best_count:  # strictly more: ties keep the smaller
                        best, best_count = labels[start], i - start
                    start = i
            ctx.value[v] = best
    if ctx.superstep < ctx.params[0] and ctx.out_degree(v) > 0:
        ctx.send_to_all(v, ctx.value[v])
    ctx.vote_to_halt(v)


def _program(message_dtype):
    return vertex_program(
        _cdlp_compute,
        value=np.int64,
        message=message_dtype,
        params=("iterations",),
        name=f"cdlp_{np.dtype(message_dtype).name}",
    )


CDLP32 = _program(np.int32)  # labels are ranks < n: 4 B per message below 2**31 vertices
CDLP64 = _program(np.int64)


def _simple_view(graph) -> Graph:
    """The undirected multigraph whose row v lists each neighbour once per direction
    (of a part: its own rows, a part of the view)."""
    if is_part(graph):
        return graph.derived("cdlp_simple_view", lambda: simple_part(graph, both_directions=True))

    def build():
        indptr, indices = simple_rows(graph, both_directions=True)
        if not graph.directed and indices.shape[0] == graph.indices.shape[0]:
            return graph  # already simple: the rows are the same
        return Graph(indptr, indices, directed=False, ids=graph.ids, name=graph.name)

    return graph.derived("cdlp_simple_view", build)


def _id_order(graph):
    """Internal ids sorted by the input's ids, or None when they already are."""
    ids = graph.ids
    if ids is None or graph.n < 2:
        return None
    ids = np.asarray(ids)
    if bool(np.all(ids[1:] > ids[:-1])):
        return None
    return np.argsort(ids, kind="stable")


def _check_iterations(iterations) -> int:
    if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)):
        raise InvalidArgumentError(f"iterations must be an integer, got {iterations!r}")
    if iterations < 0:
        raise InvalidArgumentError(f"iterations must be >= 0, got {iterations}")
    return int(iterations)


def cdlp(graph, *, iterations=10, threads=None, runtime=None, progress=False, checkpoint=None):
    """Graphalytics CDLP labels after ``iterations`` synchronous rounds.

    Column ``label`` (int64, an internal vertex id, reported in the input's ids); meta
    ``communities`` (distinct labels) and ``iterations``. Definition in the module
    docstring. ``checkpoint``: superstep checkpoints and resume (docs/checkpoints.md).
    """
    check_graph(graph, parts=True)
    iterations = _check_iterations(iterations)
    view = _simple_view(graph)
    order = _id_order(graph)
    n = graph.n
    if order is None:
        start = np.arange(n, dtype=np.int64)
    else:
        start = np.empty(n, dtype=np.int64)
        start[order] = np.arange(n, dtype=np.int64)
    prog = CDLP32 if index_dtype(n) == np.int32 else CDLP64
    job = run(
        prog,
        view,
        params={"iterations": iterations},
        values=start,
        max_supersteps=iterations + 1,
        threads=threads,
        runtime=runtime,
        progress=progress,
        checkpoint=checkpoint,
    )
    label = job.values if order is None else order[job.values].astype(np.int64)
    return finish_result(
        "cdlp",
        graph,
        {"label": label},
        job,
        meta={"communities": int(np.unique(label).size), "iterations": iterations},
        id_columns=("label",),
    )


def reference_cdlp(graph, iterations=10):
    """The Graphalytics definition with numpy sorts, one iteration at a time: neighbour
    pairs from the 0/1 adjacency matrix without its diagonal (and its transpose, for a
    directed graph), labels counted per vertex by a lexicographic sort."""
    n = graph.n
    iterations = _check_iterations(iterations)
    src, dst, _ = graph.edges()
    keep = src != dst
    key = np.unique(src[keep].astype(np.int64) * n + dst[keep])  # simple: parallel edges once
    a, b = key // max(n, 1), key % max(n, 1)
    if graph.directed:  # v hears its out-neighbours (a -> b) and its in-neighbours
        a, b = np.concatenate([a, b]), np.concatenate([b, a])
    order = _id_order(graph)
    rank = np.arange(n, dtype=np.int64)
    if order is not None:
        rank[order] = np.arange(n, dtype=np.int64)
    label = rank.copy()
    for _ in range(iterations):
        heard = label[b]
        srt = np.lexsort((heard, a))
        va, vl = a[srt], heard[srt]
        new = np.ones(va.shape[0], dtype=bool)
        new[1:] = (va[1:] != va[:-1]) | (vl[1:] != vl[:-1])
        starts = np.flatnonzero(new)
        counts = np.diff(np.append(starts, va.shape[0]))
        rv, rl = va[starts], vl[starts]
        best = np.lexsort((rl, -counts, rv))  # per vertex: most frequent, then smallest
        first = np.ones(best.shape[0], dtype=bool)
        first[1:] = rv[best][1:] != rv[best][:-1]
        label = label.copy()
        label[rv[best][first]] = rl[best][first]
    return label if order is None else order[label]


def verify_cdlp(graph, result, iterations=10):
    """Exact match with :func:`reference_cdlp` (Graphalytics: CDLP must match exactly)."""
    got = np.asarray(result["label"], dtype=np.int64)
    if got.shape != (graph.n,):
        raise VerificationError(f"cdlp: expected {graph.n} labels, got {got.shape}")
    ref = reference_cdlp(graph, iterations)
    bad = np.flatnonzero(got != ref)
    if bad.size:
        v = int(bad[0])
        ids = graph.user_ids()
        raise VerificationError(
            f"cdlp: vertex {ids[v]!r} has label {ids[got[v]]!r}, expected {ids[ref[v]]!r} "
            f"({bad.size} of {graph.n} differ)"
        )
