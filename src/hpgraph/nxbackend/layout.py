"""NetworkX's ``forceatlas2_layout`` on the backend graph: NetworkX's own iteration, with
the O(n^2) forces (the dense ``n x n x dim`` arrays NetworkX builds each iteration)
computed by the compiled kernel of :mod:`hpgraph.nxbackend._fa2`.

Everything else is NetworkX's code, step for step: the start (``random_layout``'s
``seed.rand(n, dim)`` rounded to float32, or the given ``pos``, or random positions
inside the given ones' box), masses (``G.degree + 1`` unless given), sizes, gravity,
swing, traction, the speed rule of ``estimate_factor`` and the stopping test. The one
difference: NetworkX's ``np.einsum`` sums each vertex's forces (in float64) in its own
order, the kernel in vertex order. With float32 positions (NetworkX's random start, or
float32 ones given) rounding to float32 absorbs that: every test layout agrees bit for
bit. With float64 positions given, the sums' last bits show and grow over the
iterations: up to 4e-7 of the layout's extent after 100 iterations in the tests, and
with ``linlog`` a different layout altogether, so float64 positions with ``linlog`` go
back to NetworkX. Tests compare with NetworkX within 1e-4 of the layout's extent
(``tests/test_nxbackend_layout.py``).
"""

from __future__ import annotations

import numpy as np

from hpgraph.nxbackend._fa2 import Forces
from hpgraph.nxbackend.graph import BackendGraph

__all__ = ["forceatlas2_layout"]


def _adjacency(G: BackendGraph, weight):
    """The entries of ``nx.to_numpy_array(G, weight=weight)`` per CSR entry."""
    if weight is None:
        if G.multiplicity is not None:
            return G.multiplicity.astype(np.float64)
        return np.ones(G.indices.shape[0])
    ev = G.values(weight)
    if ev is None:
        raise NotImplementedError(f"edge attribute {weight!r} was not converted to hpgraph")
    return ev.total


def _check_dim(dim):
    if not 1 <= dim <= 3:
        raise NotImplementedError("the kernel lays out in 1, 2 or 3 dimensions")


def _start(G, pos, seed, dim, linlog):
    """NetworkX's starting positions (its code, on the backend graph's vertex list).
    Raises ``NotImplementedError``, before any draw from ``seed``, for positions the
    kernel does not take, and for float64 positions with ``linlog``: there the last-bit
    differences of the force sums grow into a different layout (float32 positions round
    them away)."""
    nodes = G.nodes
    n = len(nodes)
    if pos is None:
        return (seed.rand(n, dim) + np.zeros(dim)).astype(np.float32)  # random_layout
    if len(pos) == n:
        pos_arr = np.array([pos[node].copy() for node in nodes])
        if pos_arr.ndim != 2 or pos_arr.dtype not in (np.float32, np.float64):
            raise NotImplementedError("positions that are not float32 or float64 vectors")
        _check_dim(pos_arr.shape[1])
        if linlog and pos_arr.dtype != np.float32:
            raise NotImplementedError("float64 positions with linlog")
        return pos_arr
    pos_init = np.array(list(pos.values()))
    max_pos = pos_init.max(axis=0)
    min_pos = pos_init.min(axis=0)
    dim = max_pos.size
    _check_dim(dim)  # before drawing: NetworkX's own run must find the seed untouched
    pos_arr = min_pos + seed.rand(n, dim) * (max_pos - min_pos)
    for idx, node in enumerate(nodes):
        if node in pos:
            pos_arr[idx] = pos[node].copy()
    return pos_arr


def _estimate_factor(n, swing, traction, speed, speed_efficiency, jitter_tolerance):
    """NetworkX's speed rule (``forceatlas2_layout``'s ``estimate_factor``), verbatim."""
    opt_jitter = 0.05 * np.sqrt(n)
    min_jitter = np.sqrt(opt_jitter)
    max_jitter = 10
    min_speed_efficiency = 0.05

    other = min(max_jitter, opt_jitter * traction / n**2)
    jitter = jitter_tolerance * max(min_jitter, other)

    if swing / traction > 2.0:
        if speed_efficiency > min_speed_efficiency:
            speed_efficiency *= 0.5
        jitter = max(jitter, jitter_tolerance)
    if swing == 0:
        target_speed = np.inf
    else:
        target_speed = jitter * speed_efficiency * traction / swing

    if swing > jitter * traction:
        if speed_efficiency > min_speed_efficiency:
            speed_efficiency *= 0.7
    elif speed < 1000:
        speed_efficiency *= 1.3

    max_rise = 0.5
    speed = speed + min(target_speed - speed, max_rise * speed)
    return speed, speed_efficiency


def forceatlas2_layout(
    G,
    pos=None,
    *,
    max_iter=100,
    jitter_tolerance=1.0,
    scaling_ratio=2.0,
    gravity=1.0,
    distributed_action=False,
    strong_gravity=False,
    node_mass=None,
    node_size=None,
    weight=None,
    linlog=False,
    seed=None,
    dim=2,
    store_pos_as=None,
):
    """NetworkX's ForceAtlas2 iteration (``store_pos_as`` is refused by ``can_run``)."""
    if len(G) == 0:
        return {}
    nodes = G.nodes
    n = len(nodes)
    a = _adjacency(G, weight)
    pos_arr = _start(G, pos, seed, dim, linlog)
    adjust_sizes = node_size is not None
    node_size = node_size if adjust_sizes else {}
    node_mass = {} if node_mass is None else node_mass
    mass = np.zeros(n)
    size = np.zeros(n)
    degree = G.degree().tolist()
    for idx, node in enumerate(nodes):
        mass[idx] = node_mass.get(node, degree[idx] + 1)
        size[idx] = node_size.get(node, 1)

    threads = 1 if n < 1024 else None
    forces = Forces(
        G.indptr, G.indices, a, mass, size, scaling_ratio, linlog, adjust_sizes, threads
    )
    speed = 1
    speed_efficiency = 1
    swing = 1
    traction = 1
    try:
        for _ in range(max_iter):
            attraction, repulsion = forces(pos_arr)
            if distributed_action:
                attraction /= mass[:, None]

            pos_centered = pos_arr - np.mean(pos_arr, axis=0)
            if strong_gravity:
                gravities = -gravity * mass[:, None] * pos_centered
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    unit_vec = pos_centered / np.linalg.norm(pos_centered, axis=-1)[:, None]
                unit_vec = np.nan_to_num(unit_vec, nan=0)
                gravities = -gravity * mass[:, None] * unit_vec

            update = attraction + repulsion + gravities
            swing += (mass * np.linalg.norm(pos_arr - update, axis=-1)).sum()
            traction += (0.5 * mass * np.linalg.norm(pos_arr + update, axis=-1)).sum()
            speed, speed_efficiency = _estimate_factor(
                n, swing, traction, speed, speed_efficiency, jitter_tolerance
            )

            if adjust_sizes:
                df = np.linalg.norm(update, axis=-1)
                swinging = mass * df
                factor = 0.1 * speed / (1 + np.sqrt(speed * swinging))
                factor = np.minimum(factor * df, 10.0 * np.ones(df.shape)) / df
            else:
                swinging = mass * np.linalg.norm(update, axis=-1)
                factor = speed / (1 + np.sqrt(speed * swinging))

            factored_update = update * factor[:, None]
            pos_arr += factored_update
            if abs(factored_update).sum() < 1e-10:
                break
    finally:
        forces.close()
    return dict(zip(nodes, pos_arr, strict=True))
