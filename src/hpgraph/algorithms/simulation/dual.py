"""Dual simulation as a vertex program (HHK-style counting in BSP form).

Given the data graph, a pattern and every vertex's initial candidate mask, :func:`_run_dual`
returns the masks of the largest dual-simulation relation and the job (the program is
described in the package docstring); :func:`verify_dual_simulation` checks a result.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

from hpgraph.algorithms.simulation.counters import _LOW, _add_bits, _failing
from hpgraph.algorithms.simulation.inputs import _as_pattern, _initial_masks
from hpgraph.algorithms.simulation.result import DualSimulationResult
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine import run, vertex_program
from hpgraph.errors import VerificationError
from hpgraph.graph.csr import Graph

__all__ = ["verify_dual_simulation"]


_PARENT_WEIGHT, _CHILD_WEIGHT = 1.0, 2.0  # message-graph edge weights (directed graphs)


def _dual_compute(ctx, v):
    mask = ctx.value[v, 0]
    if ctx.superstep == 0:
        if mask == 0:
            ctx.finish(v)  # no candidate: never computed, mail to it dropped
        elif ctx.params[0] != 0.0:
            ctx.send_along_edges(v, mask)  # directed: the edge weight says which half
        else:
            ctx.send_to_all(v, mask | (mask << 32))  # undirected: parent and child
        return  # candidates stay awake: superstep 1 checks them even without mail
    row = ctx.value[v]
    delta = 1 if ctx.superstep == 1 else -1  # first the masks, then removals
    for m in ctx.messages(v):
        _add_bits(row, 1, m & _LOW, delta << 32)  # from a parent: in-counts
        _add_bits(row, 1, (m >> 32) & _LOW, delta)  # from a child: out-counts
    k = (ctx.params.shape[0] - 1) // 2
    bad = _failing(mask, row, 1, k, ctx.params, 1)
    if bad != 0:
        keep = mask & ~bad
        ctx.value[v, 0] = keep
        if ctx.params[0] != 0.0:
            ctx.send_along_edges(v, bad)
        else:
            ctx.send_to_all(v, bad | (bad << 32))
        if keep == 0:
            ctx.finish(v)
            return
    ctx.vote_to_halt(v)


def _dual_edge_message(m, w):
    # weight 1: the edge's forward copy (sender is the receiver's parent); 2: backward
    return m if w < 1.5 else m << 32


@functools.cache
def _dual_program(k: int):
    """One program per pattern size (the value's length); all share one compiled kernel."""
    names = ["directed"]
    for u in range(k):
        names += [f"children{u}", f"parents{u}"]
    return vertex_program(
        _dual_compute,
        value=(np.int64, 1 + k),
        message=np.int64,
        edge_message=_dual_edge_message,
        params=tuple(names),
        name="dual_simulation",
    )


def _message_graph(graph: Graph) -> Graph:
    """Every edge of a directed graph forward (weight 1) and backward (weight 2), so that
    one broadcast reaches children and parents, each knowing which it is."""

    def build():
        src, dst, _ = graph.edges()
        m = src.shape[0]
        w = np.full(2 * m, _CHILD_WEIGHT)
        w[:m] = _PARENT_WEIGHT
        return Graph.from_edges(
            np.concatenate([src, dst]), np.concatenate([dst, src]), w, n=graph.n, directed=True
        )

    return graph.derived(("dual_simulation_messages",), build)


def _run_dual(graph, pat, init, threads, runtime, progress):
    if graph.n == 0:
        return init, None
    k = pat.k
    prog = _dual_program(k)
    params = {"directed": float(graph.directed)}
    for u in range(k):
        params[f"children{u}"] = float(pat.masks[2 * u])
        params[f"parents{u}"] = float(pat.masks[2 * u + 1])
    values = np.zeros((graph.n, 1 + k), dtype=np.int64)
    values[:, 0] = init
    g = _message_graph(graph) if graph.directed else graph
    job = run(
        prog, g, params=params, values=values, threads=threads, runtime=runtime, progress=progress
    )
    return job.values[:, 0].copy(), job


def _dual_result(graph, pat, masks, job):
    meta = {"pattern_vertices": pat.k, "pattern_edges": int(pat.src.size)}
    meta["supersteps"] = 0 if job is None else job.supersteps
    res = DualSimulationResult(
        algorithm="dual_simulation",
        graph=graph,
        columns={"mask": masks},
        stats=None if job is None else job.stats,
        meta=meta,
        pattern=pat,
    )
    res.meta["pairs"] = int(res.counts().sum())
    res.meta["matched"] = res.matched
    return res


def verify_dual_simulation(graph, labels, pattern, result, pattern_labels=None) -> None:
    """Check that ``result`` is a dual-simulation relation: labels agree and every pair
    has its child and parent witnesses. (Maximality needs the fix-point itself; the
    tests compare with an independent one.) Raises VerificationError."""
    pat = result.pattern if pattern is None else _as_pattern(pattern, pattern_labels)
    init = _initial_masks(graph, labels, pat)
    mask = np.asarray(result["mask"], dtype=np.int64)
    stray = np.flatnonzero(mask & ~init)
    if stray.size:
        v = graph.user_ids()[stray[0]]
        raise VerificationError(f"vertex {v!r} matches a pattern vertex whose label it lacks")
    ip, ix, _ = graph.in_csr()
    v = _unsupported(graph.indptr, graph.indices, ip, ix, mask, pat.masks, pat.k)
    if v >= 0:
        raise VerificationError(
            f"vertex {graph.user_ids()[v]!r} lacks a child or parent witness for one of its "
            "pattern vertices"
        )


@njit(**NUMBA_FLAGS)
def _unsupported(indptr, indices, in_ptr, in_idx, mask, pat, k):
    """The first vertex with a pair that has no witness, or -1."""
    for v in range(mask.shape[0]):
        if mask[v] == 0:
            continue
        have_out = 0
        have_in = 0
        for e in range(indptr[v], indptr[v + 1]):
            have_out |= mask[indices[e]]
        for e in range(in_ptr[v], in_ptr[v + 1]):
            have_in |= mask[in_idx[e]]
        for u in range(k):
            if (mask[v] >> u) & 1:
                if (pat[2 * u] & ~have_out) != 0 or (pat[2 * u + 1] & ~have_in) != 0:
                    return v
    return -1
