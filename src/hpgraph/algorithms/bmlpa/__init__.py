"""BMLPA: overlapping communities by balanced multi-label propagation.

Given a graph, returns a cover: every vertex belongs to one or more communities, each with
a belonging coefficient, the coefficients of a vertex summing to 1. The algorithm is Wu,
Lin, Gregory, Wan and Tian, "Balanced multi-label propagation for overlapping community
detection in social networks", JCST 27(3), 2012, on the **undirected simple view** of the
graph: directions ignored, parallel edges merged, self-loops and weights dropped.

1. **Initial labels.** ``initial="rough-cores"`` (the paper): visit the vertices by
   descending degree; a free vertex ``i`` of degree >= 3 pairs with its free neighbour
   ``j`` of highest degree; the common neighbours of ``i`` and ``j``, in ascending degree,
   grow the clique greedily (take the first, keep only the candidates adjacent to it,
   repeat); a core of >= 3 vertices gets one label and its vertices stop being free.
   Cores may share vertices that were not free (a common neighbour need not be free), so a
   vertex in k cores starts with k labels of coefficient 1/k; a vertex in no core starts
   with its own label. Degree ties are broken by a random key drawn from ``seed``, the
   only randomness in the algorithm. Or ``initial`` names labels per vertex (the seed
   paper's hashtags, :func:`read_vertex_labels`); vertices without any keep their own
   label.
2. **Update** of a vertex: ``score_v(c) = sum over neighbours u of b_u(c)``; keep the
   labels with ``score_v(c) >= b * max_c score_v(c)`` (so the best label, and all ties
   with it, always survive); renormalise the kept scores to sum 1. An isolated vertex
   keeps its labels. Label sets are stored sorted by label id and every sum runs in
   adjacency order, so the result does not depend on the number of peers.
   ``update="semi-sync"`` (default): a greedy colouring of the simple view (first fit by
   descending degree, :mod:`.schedule`) splits the vertices into classes with no edge
   inside; a *sweep* updates the classes in turn, each from the state the classes before
   it left (Cordasco and Gargano's semi-synchronous label propagation). It is an
   asynchronous order, so nothing swings with period 2, and the same one for any number
   of peers. ``update="sync"`` is the paper's: every vertex from the previous superstep.
3. **Stop.** ``stop="rate"`` (the seed's rule, default): stop once fewer than
   ``tolerance * n`` vertices hold labels (ids, not coefficients) that differ from one
   sweep back (semi-sync; default tolerance 0.06) or two supersteps back (sync, against
   its period-2 swing; default 0.01), or none does. ``stop="counts"`` (the paper's rule,
   COPRA style): with ``Count(L)`` the number of vertices holding each label and
   ``Id(L)`` the labels in use, after computing ``dest`` from ``source``: ``Min =
   elementwise-min(Count(source), Count(dest))`` if ``Id(source) == Id(dest)`` else
   ``Count(dest)``; if ``Min == oldMin`` stop (sync keeps ``source``, semi-sync the last
   sweep), else ``source = dest; oldMin = Min``. ``max_iterations`` bounds the loop
   (supersteps or sweeps).
4. **Post-process**: a community that is a subset of another is merged into the smallest
   community containing it (its members' coefficients add to that one's; equal
   communities keep the smaller label id), then every community is split into its
   connected components (in the simple view), and a piece equal to or inside another
   community merges into it the same way (ties: the earlier community). Communities are
   numbered 0..K-1 in order of (smallest member, label).

Why a peer-level program (``run_bsp``) and not a vertex program. A label set has no fixed
size: ``floor(1/b)`` is **not** a bound, since only the ratio to the best score is tested
(a vertex whose k neighbours carry k distinct labels keeps all k, at any ``b``), and on
stars the sets grow with the hub's degree. A vertex program would need fixed-size vector
values and, without a combiner (label-wise sums cannot be truncated before all arrive),
would list one whole label vector per edge: at ``b = 0.05`` with 20 (label, coefficient)
slots that is 20M stored edges x 240 B = 4.8 GB per superstep on the 8M-vertex / 10M-edge
mention graph. Here propagation runs on a breadth-first renumbering of the simple view
(:func:`locality_view`: neighbours read are near in memory; sums and label ids are
unchanged, so sets are bit-identical); each peer owns every P-th of 64 P vertex chunks
(balanced on edges, interleaved so the hub region is shared); the state is an arena of
label entries with per-vertex slots (20 B per vertex + 12 B per entry), patched in
place; each superstep a peer recomputes only the vertices with a neighbour whose set
differs from two supersteps back (the period-2 swing of synchronous propagation:
otherwise v's new set is its own of two supersteps back), with no allocation per vertex
(degree-1 vertices copy their neighbour's set, reused across the leaves of one vertex;
small vertices merge their neighbours' sets in a buffer; a vertex next to *big* sets
scores only its small neighbours' labels when a bound proves the others below the
threshold; others use a dense score array) and sends the sets that differ from two
supersteps back to every peer (by reference on the local runtime, one ``alltoall`` on
MPI), or whole ranges while most vertices differ; every peer patches its state and
applies the stop rule from the same data, so no extra collective is needed. See
``docs/algorithms/bmlpa.md`` for the bytes and the measurements.

``max_labels`` (not in the paper, off by default) keeps at most that many labels per vertex
(highest scores, ties to the smaller label id). Exact BMLPA on graphs with huge stars is
quadratic: a hub with k leaves gathers the leaves' k labels, which every leaf copies in the
next superstep (k^2 entries). The benchmark on the mention-like graph therefore runs with
``max_labels = ceil(1 / b)``; see ``docs/algorithms/bmlpa.md``.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from hpgraph.algorithms._common import check_graph
from hpgraph.algorithms.bmlpa.initial import VertexLabels, _initial, read_vertex_labels, rough_cores
from hpgraph.algorithms.bmlpa.postprocess import _postprocess, _primary
from hpgraph.algorithms.bmlpa.program import (
    SharedState,
    _assemble,
    _bmlpa_peer,
    _bmlpa_peer_semi,
    _chunks,
)
from hpgraph.algorithms.bmlpa.result import BMLPAResult
from hpgraph.algorithms.bmlpa.schedule import greedy_colouring
from hpgraph.algorithms.bmlpa.state import _gather_rows
from hpgraph.config import BMLPA_SYNC_TOLERANCE, BMLPA_TOLERANCE, DEFAULT_THREADS
from hpgraph.engine.bsp import run_bsp
from hpgraph.engine.checkpoint import crc
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators._rng import check_seed
from hpgraph.graph.part import is_part
from hpgraph.graph.views import locality_view, simple_view

__all__ = [
    "bmlpa",
    "BMLPAResult",
    "VertexLabels",
    "read_vertex_labels",
    "rough_cores",
]


# --------------------------------------------------------------------------- front end
class _Show:
    """Per-superstep progress through :class:`hpgraph.progress.Progress` (a live line on a
    terminal, plain lines when piped), or a user function ``f(iteration, changed,
    entries)``."""

    def __init__(self, progress, n, step="superstep"):
        from hpgraph.progress import Progress

        self.n = max(n, 1)
        self.step = step
        self.own = progress is True
        self.user = None if isinstance(progress, Progress) or progress is True else progress
        self.p = Progress("bmlpa") if progress is True else progress

    def __call__(self, iteration, changed, entries, relabelled):
        if self.user is not None:
            self.user(iteration, changed, entries)
            return
        self.p.update(
            f"{self.step} {iteration}: update rate {relabelled / self.n:.4f} "
            f"({relabelled:,} relabelled, {changed:,} changed), {entries:,} label entries"
        )

    def close(self, text=None):
        """End the line: ``text`` as the final line, or nothing (an error is coming)."""
        if self.own:
            self.p.done(text) if text else self.p.close()


def _check(b, p, max_labels, max_iterations, threads):
    if b is not None and p is not None and float(b) != float(p):
        raise InvalidArgumentError(f"b and its alias p disagree: b={b!r}, p={p!r}")
    b = 0.1 if b is None and p is None else (b if b is not None else p)
    if isinstance(b, bool) or not isinstance(b, int | float) or not 0.0 < float(b) <= 1.0:
        raise InvalidArgumentError(f"b (belonging threshold) must be in (0, 1], got {b!r}")
    if max_labels is not None and (
        isinstance(max_labels, bool) or not isinstance(max_labels, int) or max_labels < 1
    ):
        raise InvalidArgumentError(
            f"max_labels must be a positive integer or None, got {max_labels!r}"
        )
    if (
        isinstance(max_iterations, bool)
        or not isinstance(max_iterations, int)
        or max_iterations < 0
    ):
        raise InvalidArgumentError(
            f"max_iterations must be an integer >= 0, got {max_iterations!r}"
        )
    if threads is not None and (
        isinstance(threads, bool) or not isinstance(threads, int) or threads < 1
    ):
        raise InvalidArgumentError(f"threads must be a positive integer, got {threads!r}")
    return float(b)


_STOP_RULES = ("rate", "counts")
UPDATES = ("semi-sync", "sync")


def _check_stop(stop, tolerance, update="semi-sync"):
    """The update-rate tolerance of ``stop="rate"``, or None for the counts rule."""
    if stop not in _STOP_RULES:
        raise InvalidArgumentError(f"stop must be one of {', '.join(_STOP_RULES)}; got {stop!r}")
    if stop == "counts":
        if tolerance is not None:
            raise InvalidArgumentError("tolerance applies to stop='rate' only")
        return None
    if tolerance is None:
        return BMLPA_TOLERANCE if update == "semi-sync" else BMLPA_SYNC_TOLERANCE
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, int | float)
        or not (0.0 <= float(tolerance) < 1.0)
    ):
        raise InvalidArgumentError(f"tolerance must be in [0, 1), got {tolerance!r}")
    return float(tolerance)


def _in_order(ptr, lab, coef, order, threads):
    """The sets (CSR) with row i taken from row ``order[i]``, copied on ``threads``."""
    return _gather_rows([ptr[:-1], ptr[1:], None, lab, coef], order, threads)


def bmlpa(
    graph,
    *,
    b: float | None = None,
    p: float | None = None,
    initial="rough-cores",
    max_labels: int | None = None,
    max_iterations: int = 100,
    stop: str = "rate",
    tolerance: float | None = None,
    update: str = "semi-sync",
    seed: int = 0,
    threads: int | None = None,
    runtime=None,
    progress=False,
    checkpoint=None,
) -> BMLPAResult:
    """Overlapping communities of ``graph`` by BMLPA (see the module docstring).

    ``b`` (alias ``p``, default 0.1) is the belonging threshold: a label stays at a vertex
    when its score is at least ``b`` times the best one. ``initial`` is ``"rough-cores"``,
    a label file (:func:`read_vertex_labels`), a :class:`VertexLabels`, a mapping
    ``{vertex: label or labels}`` in the input's ids, or an integer array of one label per
    vertex (-1: none); unlabelled vertices start with their own label. ``max_labels`` caps
    the labels per vertex (not in the paper; ``None``: no cap). ``update="semi-sync"``
    (default) sweeps the colour classes of a greedy colouring in turn; ``"sync"`` is the
    paper's synchronous superstep. ``stop="rate"`` (the seed's rule, default) stops once
    the share of vertices whose labels changed (against one sweep back, or two supersteps
    back, see the module docstring) falls below ``tolerance`` (default
    :data:`hpgraph.config.BMLPA_TOLERANCE`, 0.06, for semi-sync and
    :data:`~hpgraph.config.BMLPA_SYNC_TOLERANCE`, 0.01, for sync); ``stop="counts"`` is
    the paper's label-count rule. ``max_iterations`` bounds both. ``seed`` breaks degree
    ties in the rough cores. ``threads`` peers on the local runtime, or
    ``runtime="mpi"``. ``progress=True`` shows a live line per iteration, or pass a
    function ``progress(iteration, changed_vertices, label_entries)``. ``checkpoint``
    (a :class:`~hpgraph.engine.checkpoint.Checkpoints`, semi-sync only) writes the
    propagation's state every ``every`` sweeps and resumes from it, bit for bit
    (docs/checkpoints.md).
    """
    check_graph(graph, parts=True)
    b = _check(b, p, max_labels, max_iterations, threads)
    if update not in UPDATES:
        raise InvalidArgumentError(f"update must be one of {', '.join(UPDATES)}; got {update!r}")
    tolerance = _check_stop(stop, tolerance, update)
    if checkpoint is not None and update != "semi-sync":
        raise InvalidArgumentError("BMLPA checkpoints need update='semi-sync' (the default)")
    seed = check_seed(seed)
    n = graph.n
    step = "sweep" if update == "semi-sync" else "superstep"
    show = _Show(progress, n, step) if progress and n and max_iterations else None
    try:
        if is_part(graph):
            from hpgraph.algorithms.bmlpa.parts import cover_of_part

            if update != "semi-sync" or checkpoint is not None:
                raise InvalidArgumentError(
                    "BMLPA on a partitioned graph runs semi-synchronous sweeps without "
                    "checkpoints; load the whole graph for update='sync' or checkpoints"
                )
            cover = cover_of_part(
                graph, initial, b, max_labels or 0, max_iterations, tolerance, threads,
                runtime, show, seed,
            )  # fmt: skip
        else:
            cover = _cover_of_whole(
                graph, initial, seed, b, max_labels, max_iterations, stop, tolerance, update,
                threads, runtime, checkpoint, show,
            )  # fmt: skip
    except BaseException:
        if show is not None:
            show.close()
        raise
    ptr, comm, coef, sizes, origin, nested = cover.rows
    stopped, changed, relabelled = cover.stopped, cover.changed, cover.relabelled
    if show is not None:
        show.close(
            f"{sizes.shape[0]:,} communities after {len(changed)} "
            f"{'sweeps' if update == 'semi-sync' else 'supersteps'} "
            f"(stopped by the {stopped} rule)" if stopped != "max_iterations"
            else f"{sizes.shape[0]:,} communities; max_iterations ({max_iterations}) reached"
        )  # fmt: skip
    best, bcoef = _primary(ptr, comm, coef)
    names = cover.names
    ids = graph.user_ids()
    vertex = origin < n
    label = np.asarray(ids[origin[vertex]])  # one indexing (collective on a part)
    if names is not None:  # communities grown from initial labels carry their names
        label, of_vertex = np.empty(origin.shape[0], dtype=object), label
        label[vertex] = list(of_vertex)
        label[~vertex] = [names[o - n] for o in origin[~vertex].tolist()]
    counts = np.diff(ptr)
    meta = {
        "b": b,
        "max_labels": max_labels,
        "iterations": len(changed),
        "stop": stop,
        "tolerance": tolerance,
        "update": update,
        "colours": cover.colours,
        "stopped_by": stopped,
        "converged": stopped != "max_iterations",
        "update_rate": [c / n for c in relabelled],
        "communities": int(sizes.shape[0]),
        "overlapping_vertices": int((counts > 1).sum()),
        "nested_removed": nested,
        "initial": initial if isinstance(initial, str) else type(initial).__name__,
        "init_s": cover.init_s,
        "postprocess_s": cover.post_s,
        "changed_per_iteration": changed,
        "active_per_iteration": cover.active,
        "relabelled_per_iteration": relabelled,
        **cover.extra,
    }
    return BMLPAResult(
        algorithm="bmlpa",
        graph=graph,
        columns={"community": best, "belonging": bcoef, "memberships": counts},
        stats=cover.stats,
        meta=meta,
        ptr=ptr,
        community_of=comm,
        coefficient=coef,
        sizes=sizes,
        label=label,
        named=origin >= n if names is not None else np.zeros(sizes.shape[0], dtype=np.bool_),
    )


class Cover(NamedTuple):
    """What a run gives the front end: the post-processed cover in input order (``rows``:
    ptr, community per entry, coefficients, sizes, label per community, nested count) and
    the run's record."""

    rows: tuple
    names: list | None
    stats: object
    stopped: str
    changed: list
    relabelled: list
    active: list
    colours: int | None
    init_s: float
    post_s: float
    extra: dict


def _cover_of_whole(
    graph, initial, seed, b, max_labels, max_iterations, stop, tolerance, update, threads,
    runtime, checkpoint, show,
):  # fmt: skip
    """:class:`Cover` of a whole graph (the module docstring)."""
    t0 = time.perf_counter()
    indptr, indices = simple_view(graph)
    ptr, lab, coef, num_labels, names = _initial(graph, initial, seed)
    order, lip, lix = locality_view(graph)
    extra, colours = (), None
    if update == "semi-sync":  # colours of the renumbered vertices
        colour, colours = greedy_colouring(indptr, indices)
        extra = (colour[order], SharedState())
    init_s = time.perf_counter() - t0
    n = graph.n
    stats = None
    stopped, changed, relabelled, active = "no supersteps", [], [], []
    view = (indptr, indices, None)  # the graph the sets are numbered in, and its scan order
    if n and max_iterations:
        start = _in_order(ptr, lab, coef, order, threads or DEFAULT_THREADS)
        fingerprint = None
        if checkpoint is not None:  # the graph, the initial labels and the parameters
            fingerprint = {
                "n": n, "edges": int(lix.shape[0]), "graph": crc(lip, lix), "labels": crc(*start),
                "b": repr(float(b)), "max_labels": max_labels or 0, "stop": stop,
                "tolerance": repr(tolerance), "max_iterations": max_iterations,
            }  # fmt: skip
        res = run_bsp(
            _bmlpa_peer_semi if update == "semi-sync" else _bmlpa_peer,
            peers=min(threads or DEFAULT_THREADS, n),
            args=(
                lip,
                lix,
                start,
                num_labels,
                b,
                max_labels or 0,
                max_iterations,
                tolerance,
                show,
                *extra,
            ),  # fmt: skip
            runtime=runtime,
            checkpoint=checkpoint,
            fingerprint=fingerprint,
        )
        rows = res.results
        stats = res.stats
        stopped, (changed, relabelled, _) = rows[0][1], rows[0][2]
        active = [int(x) for x in np.sum([r[2][2] for r in rows], axis=0)]
        parts = len(rows)
        counts, lab, coef = _assemble([r[0] for r in rows], *_chunks(lip, parts), parts)
        ptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=ptr[1:])
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        # post-processed in the breadth-first order (near in memory), numbered by the
        # input's ids (rank[i]: vertex i's row), then brought back to the input's order
        view = (lip, lix, rank)
    t1 = time.perf_counter()
    ptr, comm, coef, sizes, origin, nested = _postprocess(
        *view[:2], ptr, lab, coef, num_labels, threads or DEFAULT_THREADS, view[2]
    )
    post_s = time.perf_counter() - t1
    if view[2] is not None:
        ptr, comm, coef = _in_order(ptr, comm, coef, view[2], threads or DEFAULT_THREADS)
    return Cover(
        (ptr, comm, coef, sizes, origin, nested), names, stats, stopped, changed, relabelled,
        active, colours, init_s, post_s, {},
    )  # fmt: skip
