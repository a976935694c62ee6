"""Graph pattern matching by dual simulation and strict simulation.

Given a labelled data graph G = (V, E, l) and a small directed labelled pattern
Q = (Vq, Eq, lq), :func:`dual_simulation` returns the largest relation S in Vq x V such
that (u, v) in S implies lq(u) = l(v), every pattern edge (u, u') has a data edge
(v, v') with (u', v') in S, and every pattern edge (u'', u) has a data edge (v'', v)
with (u'', v'') in S (Ma, Cao, Fan, Huai, Wo, "Strong simulation: capturing topology in
graph pattern matching", ACM TODS 39(1), 2014). :func:`strict_simulation` (Fard, Nisar,
Ramaswamy, Miller, Saltz, "A distributed vertex-centric approach for pattern matching in
massive graphs", IEEE BigData 2013) then localises it: with d_Q the pattern's undirected
diameter, for every data vertex w in S it takes the ball of radius d_Q around w in the
*match graph* of S (the edges (v, v') of G with (u, v), (u', v') in S for some pattern
edge (u, u'); strong simulation would take the ball in G itself), computes dual
simulation of Q inside the ball, and keeps the connected component of the ball's match
graph that contains w. It is a match when w is in it and every pattern vertex is matched.
Two centres that give the same set of (pattern vertex, data vertex) pairs give one match,
reported with the smaller centre (as the authors' ScalaTion code keeps distinct matches).

Dual simulation is a vertex program (HHK-style counting, in BSP form). A data vertex's
value is its candidate mask (bit u: it may match pattern vertex u, so |Vq| <= 32) and,
per pattern vertex u, two 32-bit counters packed in an int64: its out-edges to and its
in-edges from vertices whose mask has u. Superstep 0: every label-compatible vertex sends
its mask to its children and its parents; in superstep 1 the received masks become the
counters. From then on a vertex drops u when a pattern child of u has no counted child
or a pattern parent of u no counted parent, and sends the dropped bits, along the same
edges, so that receivers decrement; the job ends when no mask changes. A receiver must
tell a parent's message from a child's: on a directed graph the program runs on the
*message graph* (every edge forward with weight 1 and backward with weight 2) and the
edge function moves a child's bits to the upper half of the 64-bit message; on an
undirected graph a neighbour is both, so the sender fills both halves itself and no
extra graph is built. Messages are listed (a sum of masks is not a count per bit).

Strict simulation's balls are a peer-level BSP program (``run_bsp``). Every peer holds
the whole graph in this version, so after the dual-simulation job every process builds
the match graph of S (out- and in-CSR) and every peer expands the balls of its own share
of the centres (every P-th centre, so hubs spread over peers) without messages: a
distributed-graph version would spend d_Q supersteps sending frontier ids instead (Fard
et al.), which here would only copy data that each peer already has. One superstep
follows to drop duplicates: each match goes to the peer that owns its hash, which keeps
one match per distinct pair set (exact comparison, smallest centre). The compiled kernel
per ball: a BFS to depth d_Q that records the edges it crosses; the edges among border
vertices (depth d_Q) from "up-lists" (each match edge stored once, at its endpoint of
lower degree, as in triangle counting, so a hub on the border costs its few
higher-ranked neighbours, not its adjacency); then, since S is stable on the match
graph, only border vertices can lack a witness at first: one pass over the ball's edges
checks them, and a ball that keeps them all is its centre's match. Otherwise counters
over a local CSR of the ball, a work-list fix-point from the border (a vertex is
rechecked only when one of its counts reaches zero), and a BFS over the ball's match
edges from the centre.

Cost. Dual simulation: superstep 0 sends one message per edge and direction from every
candidate, later supersteps only removals (each (vertex, pattern vertex) pair is removed
once); supersteps: the fix-point's rounds + 2. Memory: value 8 (1 + |Vq|) B per vertex,
listed messages 8 B per delivered message; on directed graphs the message graph adds
24 B per edge (2 directions x (4 B id + 8 B weight)) plus as much again for its in-edges
when delivery pulls, cached on the graph. Strict simulation: the match graph's out- and
in-CSR and up-lists (24 B per vertex + 16 B per match edge) once per process, 12 B per
vertex per peer of scratch, plus per peer about 8 (6 + |Vq|) B per vertex and 32 B per
edge of the largest ball; time is the sum over balls of their edges (x |Vq| when the
fix-point runs), and the output is the sum of the matches' sizes.

The package: :mod:`.pattern` (the :class:`Pattern`), :mod:`.files` (pattern and label
files), :mod:`.inputs` (arguments to arrays), :mod:`.counters` (the witness counters both
phases share), :mod:`.dual` (the vertex program and its verifier), :mod:`.strict` (the
ball phase's peer program and deduplication), :mod:`.balls` (the compiled ball kernel) and
:mod:`.result` (the result types); this module holds the two front ends.
"""

from __future__ import annotations

from hpgraph.algorithms._common import check_graph
from hpgraph.algorithms.simulation.dual import _dual_result, _run_dual, verify_dual_simulation
from hpgraph.algorithms.simulation.files import read_labels, read_pattern
from hpgraph.algorithms.simulation.inputs import _as_pattern, _initial_masks
from hpgraph.algorithms.simulation.pattern import MAX_PATTERN_VERTICES, Pattern
from hpgraph.algorithms.simulation.result import (
    DualSimulationResult,
    Match,
    StrictSimulationResult,
)
from hpgraph.algorithms.simulation.strict import _strict
from hpgraph.errors import InvalidArgumentError
from hpgraph.runtimes import get_runtime

__all__ = [
    "MAX_PATTERN_VERTICES",
    "Pattern",
    "Match",
    "DualSimulationResult",
    "StrictSimulationResult",
    "dual_simulation",
    "strict_simulation",
    "read_pattern",
    "read_labels",
    "verify_dual_simulation",
]


def dual_simulation(
    graph, labels=None, pattern=None, pattern_labels=None, *, threads=None, runtime=None,
    progress=False,
):  # fmt: skip
    """The largest dual-simulation relation of ``pattern`` in ``graph`` (definition in the
    module docstring).

    ``labels``: one label per data vertex (an array in internal-id order, a ``{vertex:
    label}`` dict in the input's ids, or a file for :func:`read_labels`). ``pattern``: a
    :class:`Pattern`, a pattern file (:func:`read_pattern`), a directed hpgraph Graph
    with ``pattern_labels`` (array or ``{id: label}``), or an edge list ``[(a, b), ...]``
    with ``pattern_labels`` (``{id: label}``, isolated vertices included). Labels match
    by equality (3 != "3"). An undirected data graph has both directions of every edge.
    """
    check_graph(graph)
    pat = _as_pattern(pattern, pattern_labels)
    init = _initial_masks(graph, labels, pat)
    masks, job = _run_dual(graph, pat, init, threads, runtime, progress)
    return _dual_result(graph, pat, masks, job)


def strict_simulation(
    graph, labels=None, pattern=None, pattern_labels=None, *, threads=None, runtime=None,
    progress=False,
):  # fmt: skip
    """Strict-simulation matches of a connected ``pattern`` in ``graph`` (definition in
    the module docstring; arguments as for :func:`dual_simulation`). Every peer holds the
    whole graph: ``threads`` peers on the local runtime, one per rank on MPI."""
    check_graph(graph)
    pat = _as_pattern(pattern, pattern_labels)
    if pat.diameter is None:
        raise InvalidArgumentError(
            "strict simulation needs a connected pattern (its balls have the pattern's "
            "diameter as radius); this one has several components"
        )
    init = _initial_masks(graph, labels, pat)
    own = runtime is None or isinstance(runtime, str)
    rt = get_runtime(runtime, threads)
    try:
        masks, job = _run_dual(graph, pat, init, None, rt, progress)
        dual = _dual_result(graph, pat, masks, job)
        return _strict(graph, pat, dual, rt)
    finally:
        if own:
            rt.close()
