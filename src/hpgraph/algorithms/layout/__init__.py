"""Force-directed layout (Fruchterman and Reingold, "Graph drawing by force-directed
placement", Software: Practice and Experience 21(11), 1991). Given a graph, returns a
position for every vertex in 2-D or 3-D (columns ``x``, ``y`` and ``z``), float64.

Definitions. The frame is the unit square (unit cube in 3-D), so the area is normalised
to 1 and the natural edge length is ``k = (1 / n) ** (1 / dim)`` unless given. Edges are
read undirected (a directed graph is symmetrised: an edge present in both directions
counts twice, like a multi-edge). Every iteration, synchronously (all vertices move from
the same previous positions):

- attraction along each edge: ``w * d**2 / k`` towards the neighbour, ``w`` the edge
  weight (1 when unweighted; weights multiply the force and must be finite and >= 0);
  multi-edges count with their multiplicity, self-loops exert no force (d = 0);
- repulsion between every pair: ``k**2 / d`` away from the other vertex. ``exact`` sums
  all pairs, O(n^2); ``grid`` is the paper's grid variant: cells of side >= 2k over the
  frame, repulsion only from vertices in the 3^dim neighbouring cells closer than 2k
  (the paper's ``u(2k - d)`` cut-off); ``barnes-hut`` uses a quadtree (octree in 3-D)
  and replaces a cell of width s by its centre of mass when ``s / d < theta``, d the
  distance from that centre to the bounding box of the vertex's group (the largest
  subtree of at most ``GROUP`` vertices holding it; one tree walk serves the group) and
  the cell not holding the vertex. ``auto`` is exact up to ``EXACT_MAX`` vertices,
  Barnes-Hut above;
- gravity ``gravity * n**(1 - 2/dim) * r``, a linear pull towards the frame's centre
  (``r`` the offset from it): it keeps disconnected components and isolated vertices,
  which all-pairs repulsion pushes apart for ever, near the frame; the ``n`` factor
  balances the repulsion's sum so layouts are about frame-sized in 2-D and 3-D. Default
  1, and 0 for ``grid``, whose repulsion is short-range;
- a vertex moves along its net force by at most the temperature ``t``; ``t`` starts at a
  tenth of the frame's width and cools linearly to ``t0 / iterations`` in the last
  iteration (as NetworkX's ``spring_layout``);
- positions are clipped to ``[BOX_LO, BOX_HI]^dim`` (the frame plus a frame's width on
  each side: the paper's walls, far enough that gravity-bound layouts rarely touch them).
  Two vertices at the same point push each other apart along a coordinate axis picked
  from their ids (a deterministic tie-break).

Initial positions are ``numpy.random.default_rng(seed).random((n, dim))`` (uniform in the
frame) unless ``initial`` is given. Results are deterministic for a seed and are *bitwise
identical for any number of threads or MPI ranks*: a vertex's displacement is a sum, in
a fixed order, over structures (grid, tree) that every peer builds from the same full
position array; no sum crosses peers.

Why the peer-level API, not a vertex program: repulsion acts between every pair of
vertices, not along edges, so a vertex needs every position (or a spatial index over
them), which the vertex model's per-edge messages cannot give without n^2 messages. Here
each peer owns a set of vertices, computes their moves in one nogil numba call per
iteration, and sends its new positions to every other peer (by reference on the local
runtime, one ``alltoall`` on MPI); every peer then holds the full position array for
the next iteration and builds its own copy of the grid or tree (O(n), a fraction of the
walk it serves). For exact and grid a peer owns a vertex range (balanced by per-vertex
repulsion cost plus degree); for Barnes-Hut, a range of this iteration's Morton order
(the same on every peer), so a peer's groups are its own and their walks are not
repeated by another peer.

Quality measures (:func:`layout_quality`): edge-length spread (coefficient of variation),
the neighbour ratio (mean edge length / mean distance between random pairs) and, on small
graphs, the normalised stress against hop distances.

The package: :mod:`.forces` (exact and grid repulsion, attraction, the move),
:mod:`.barnes_hut` (the tree and its walk) and :mod:`.quality` (:func:`layout_quality`);
this module holds the front end and the peer program. :func:`plot_layout` lives in
:mod:`hpgraph.viz.layout_plot` and is importable from here as before.
"""

from __future__ import annotations

import importlib
import math

import numpy as np

from hpgraph.algorithms._common import check_graph, check_weights
from hpgraph.algorithms.layout.barnes_hut import GROUP, _fr_step_bh
from hpgraph.algorithms.layout.barnes_hut import LEAF_CAP as LEAF_CAP
from hpgraph.algorithms.layout.barnes_hut import MAX_DEPTH as MAX_DEPTH
from hpgraph.algorithms.layout.forces import BOX_HI, BOX_LO, _fr_step
from hpgraph.algorithms.layout.quality import _COLS, layout_quality
from hpgraph.engine.bsp import run_bsp
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.partition import range_partition
from hpgraph.result import VertexResult

__all__ = ["layout", "layout_quality", "plot_layout", "EXACT_MAX"]

#: ``method="auto"`` sums all pairs up to this many vertices, uses Barnes-Hut above.
EXACT_MAX = 2048


#: Starting temperature as a fraction of the frame's width.
T0 = 0.1


_METHODS = {"exact": 0, "grid": 1, "barnes-hut": 2}


# per-vertex repulsion cost in edge visits, to balance the peers' ranges
_ALPHA = {"grid": 40.0, "barnes-hut": 150.0}


def _fr_peer(peer, g, pos0, method, k, theta, gravity, temps, alpha, progress):
    n, P = g.n, peer.num_peers
    offsets = range_partition(g, P, alpha=alpha).offsets
    lo, hi = int(offsets[peer.pid]), int(offsets[peer.pid + 1])
    w = g.weights if g.weights is not None else np.zeros(0, np.float64)
    # grid cells at least 2k wide, and no more cells than a few per vertex
    cap = int((4 * g.n + 64) ** (1.0 / pos0.shape[1]))
    ncell = max(1, min(int((BOX_HI - BOX_LO) / (2.0 * k)), cap))
    pos = pos0.copy()  # this peer's copy of every position
    show = _Progress(len(temps)) if progress and peer.pid == 0 else None
    try:
        for it, t in enumerate(temps):
            if method == 2:  # Barnes-Hut: this iteration's owners follow the tree
                order, new = _fr_step_bh(
                    pos, peer.pid, P, g.indptr, g.indices, w, g.weights is not None,
                    k, theta, GROUP, gravity, t,
                )  # fmt: skip
                mine = order[peer.pid * n // P : (peer.pid + 1) * n // P]
            else:
                new = _fr_step(
                    pos, lo, hi, g.indptr, g.indices, w, g.weights is not None,
                    k, method, ncell, gravity, t,
                )  # fmt: skip
            for q in range(P):
                if q != peer.pid:
                    peer.send(q, new)  # a fresh array each iteration: safe by reference
            peer.sync()
            if method == 2:
                pos[mine] = new
                for src, block in peer.messages():
                    pos[order[src * n // P : (src + 1) * n // P]] = block
            else:
                pos[lo:hi] = new
                for src, block in peer.messages():
                    pos[offsets[src] : offsets[src + 1]] = block
            if show is not None:
                show.update(it + 1)
    finally:
        if show is not None:
            show.close()
    return pos[lo:hi].copy()


class _Progress:
    """The iterations of peer 0, through :class:`hpgraph.progress.Counter`."""

    def __init__(self, total):
        from hpgraph.progress import Counter

        self._c = Counter("layout", total, "iterations")

    def update(self, done):
        self._c.set(done)

    def close(self):
        self._c.close()


def _whole(name, value, lo):
    if isinstance(value, bool) or int(value) != value or value < lo:
        raise InvalidArgumentError(f"{name} must be a whole number >= {lo}, got {value!r}")
    return int(value)


def _dimension(dim):
    """``dim`` checked: 2 or 3."""
    dim = _whole("dim", dim, 2)
    if dim > 3:
        raise InvalidArgumentError(f"dim must be 2 or 3, got {dim}")
    return dim


def layout(
    graph,
    *,
    dim=2,
    iterations=100,
    seed=0,
    method="auto",
    k=None,
    theta=0.8,
    gravity=None,
    initial=None,
    threads=None,
    runtime=None,
    progress=False,
):
    """Fruchterman-Reingold positions of every vertex around the unit square (``dim=2``)
    or cube (``dim=3``), inside ``[BOX_LO, BOX_HI]^dim``: a :class:`VertexResult` with
    float64 columns ``x``, ``y`` (``z``). Definitions: the module docstring.

    ``method``: ``"exact"`` (all pairs), ``"grid"`` (FR's grid variant, repulsion within
    2k), ``"barnes-hut"`` (``theta``: opening angle, 0.5..1; smaller is more exact) or
    ``"auto"`` (exact up to :data:`EXACT_MAX` vertices). ``k``: natural edge length in
    frame units (default ``(1/n)**(1/dim)``). ``initial``: an ``(n, dim)`` array of
    starting positions inside the box (default: uniform random in the frame from
    ``seed``). ``gravity``: pull to the centre (default 1, 0 for ``grid``).
    """
    check_graph(graph)
    dim = _dimension(dim)
    iterations = _whole("iterations", iterations, 0)
    seed = _whole("seed", seed, 0)
    if method not in ("auto", *_METHODS):
        raise InvalidArgumentError(
            f"method must be one of auto, {', '.join(_METHODS)}; got {method!r}"
        )
    if not (isinstance(theta, int | float) and 0.0 < theta <= 2.0):
        raise InvalidArgumentError(f"theta must lie in (0, 2], got {theta!r}")
    n = graph.n
    if k is None:
        k = (1.0 / max(n, 1)) ** (1.0 / dim)
    elif not (isinstance(k, int | float) and math.isfinite(k) and k > 0):
        raise InvalidArgumentError(f"k must be a finite number > 0, got {k!r}")
    k = float(k)
    if initial is None:
        pos0 = np.random.default_rng(seed).random((n, dim))
    else:
        pos0 = np.array(initial, dtype=np.float64, order="C")  # a copy: never the caller's
        if pos0.shape != (n, dim):
            raise InvalidArgumentError(
                f"initial must have shape ({n}, {dim}) (vertices, dim), got {pos0.shape}"
            )
        bad = ~np.isfinite(pos0) | (pos0 < BOX_LO) | (pos0 > BOX_HI)
        if bad.any():
            v = int(np.flatnonzero(bad.any(axis=1))[0])
            raise InvalidArgumentError(
                f"initial positions must lie in [{BOX_LO:g}, {BOX_HI:g}]^{dim}; vertex "
                f"{graph.user_ids()[v]!r} is at {pos0[v].tolist()}"
            )
    g = graph.symmetrized()
    check_weights(g, "layout")
    if method == "auto":
        method = "exact" if n <= EXACT_MAX else "barnes-hut"
    if gravity is None:
        gravity = 0.0 if method == "grid" else 1.0
    if not (isinstance(gravity, int | float) and math.isfinite(gravity) and gravity >= 0):
        raise InvalidArgumentError(f"gravity must be a finite number >= 0, got {gravity!r}")
    grav = float(gravity) * max(n, 1) ** (1.0 - 2.0 / dim)
    temps = T0 * (1.0 - np.arange(iterations) / max(iterations, 1))
    alpha = float(max(n, 1)) if method == "exact" else _ALPHA[method]
    res = run_bsp(
        _fr_peer,
        peers=threads,
        args=(g, pos0, _METHODS[method], k, float(theta), grav, temps, alpha, progress),
        runtime=runtime,
    )
    pos = np.concatenate([pos0[:0], *res.results]) if n else pos0
    return VertexResult(
        algorithm="layout",
        graph=graph,
        columns={_COLS[a]: np.ascontiguousarray(pos[:, a]) for a in range(dim)},
        stats=res.stats,
        meta={
            "dim": dim,
            "iterations": iterations,
            "method": method,
            "k": k,
            "theta": float(theta) if method == "barnes-hut" else None,
            "seed": seed,
            "peers": len(res.results),
        },
    )


def __getattr__(name):
    # the drawing moved to hpgraph.viz.layout_plot (matplotlib, imported on first use)
    if name == "plot_layout":
        return importlib.import_module("hpgraph.viz.layout_plot").plot_layout
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
