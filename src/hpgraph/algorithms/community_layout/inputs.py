"""The arguments of :func:`~hpgraph.algorithms.community_layout.community_layout`.

Given a cover (a BMLPA result or one community per vertex) and optional leaders,
:func:`_communities` and :func:`_leader_pairs` return them as checked int64 arrays.
"""

from __future__ import annotations

import math

import numpy as np

from hpgraph.errors import InvalidArgumentError

__all__: list[str] = []


def _communities(graph, cover):
    n = graph.n
    if hasattr(cover, "columns") and "community" in getattr(cover, "columns", {}):
        if cover.graph is not None and cover.graph.n != n:
            raise InvalidArgumentError(
                f"cover is for a graph of {cover.graph.n} vertices, this one has {n}"
            )
        comm = np.asarray(cover.columns["community"])
    else:
        comm = np.asarray(cover)
    if comm.shape != (n,):
        raise InvalidArgumentError(
            f"cover must be a BMLPAResult or hold one community per vertex ({n}), got shape "
            f"{comm.shape}"
        )
    if comm.dtype.kind not in "iu":
        raise InvalidArgumentError(f"community ids must be integers, got dtype {comm.dtype}")
    if n and comm.min() < 0:
        v = int(np.argmin(comm))
        raise InvalidArgumentError(
            f"community ids must be >= 0; vertex {graph.user_ids()[[v]].tolist()[0]!r} has "
            f"{int(comm[v])}"
        )
    return comm.astype(np.int64)


def _leader_pairs(leaders, n, ncover):
    """(community, vertex) of every rank-1 leader, from a LeadersResult-like object (arrays
    ``community``, ``vertex``, ``rank``) or a per-community array (-1: none)."""
    if all(hasattr(leaders, a) for a in ("community", "vertex", "rank")):
        comm = np.asarray(leaders.community, dtype=np.int64)
        vert = np.asarray(leaders.vertex, dtype=np.int64)
        first = np.asarray(leaders.rank) == 1
        comm, vert = comm[first], vert[first]
    else:
        vert = np.asarray(leaders)
        if vert.ndim != 1 or vert.dtype.kind not in "iu":
            raise InvalidArgumentError(
                "leaders must be a LeadersResult (community, vertex, rank) or a 1-D integer "
                f"array of one leader per community (-1: none), got {vert.dtype} {vert.shape}"
            )
        vert = vert.astype(np.int64)
        comm = np.flatnonzero(vert >= 0)
        vert = vert[comm]
    if vert.size and (vert.min() < 0 or vert.max() >= n):
        raise InvalidArgumentError(f"leader vertices must be internal ids in 0..{n - 1}")
    if comm.size and (comm.min() < 0 or comm.max() >= ncover):
        raise InvalidArgumentError(f"leader communities must lie in 0..{ncover - 1}")
    return comm, vert


def _number(name, value, lo, hi=math.inf):
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo < value <= hi:
        raise InvalidArgumentError(f"{name} must be a number in ({lo:g}, {hi:g}], got {value!r}")
    return float(value)
