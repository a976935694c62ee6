"""The forces of one Fruchterman-Reingold iteration, exact or on FR's grid.

Given every position (as an (n, 3) array, z = 0 in 2-D) and a vertex range,
:func:`_fr_step` returns the range's new positions: repulsion summed over all pairs
(:func:`_repel_exact`) or from the 3^dim neighbouring grid cells within 2k
(:func:`_repel_grid`), attraction along the edges (:func:`_attract`), gravity and the
temperature cap (:func:`_move`). Compiled kernels: arrays and scalars only; ``dim`` only
picks the grid's neighbourhood and the coincident axes.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = ["BOX_LO", "BOX_HI"]


#: Positions are clipped to [BOX_LO, BOX_HI]^dim: the frame plus a frame's width on every
#: side. Gravity keeps layouts about frame-sized, so the walls rarely bite; they bound the
#: tree and the grid and guarantee that nothing leaves.
BOX_LO = -1.0


BOX_HI = 2.0


#: Pairs closer than this (times k) are treated as coincident: deterministic axis push.
_TINY = 1e-9


@njit(**NUMBA_FLAGS)
def _rep(dx, dy, dz, u, v, k2, dim):
    """Repulsion k^2/d of v on u along (dx, dy, dz) = p_u - p_v, as a displacement."""
    d2 = dx * dx + dy * dy + dz * dz
    if d2 > _TINY * _TINY * k2:
        f = k2 / d2
        return dx * f, dy * f, dz * f
    # coincident: push u along an axis chosen by the pair, away from v by id
    s = math.sqrt(k2) if u > v else -math.sqrt(k2)
    a = (u + v) % dim
    if a == 0:
        return s, 0.0, 0.0
    if a == 1:
        return 0.0, s, 0.0
    return 0.0, 0.0, s


@njit(**NUMBA_FLAGS, inline="always")
def _add_force(disp, r, fx, fy, fz):
    """Add the force (fx, fy, fz) to row r of the displacements."""
    disp[r, 0] += fx
    disp[r, 1] += fy
    disp[r, 2] += fz


@njit(**NUMBA_FLAGS)
def _repel_exact(p, lo, hi, k2, dim, disp):
    n = p.shape[0]
    for u in range(lo, hi):
        fx = fy = fz = 0.0
        for v in range(n):
            if v != u:
                a, b, c = _rep(p[u, 0] - p[v, 0], p[u, 1] - p[v, 1], p[u, 2] - p[v, 2],
                               u, v, k2, dim)  # fmt: skip
                fx += a
                fy += b
                fz += c
        _add_force(disp, u - lo, fx, fy, fz)


@njit(**NUMBA_FLAGS)
def _grid_build(p, ncell, dim):
    """Counting sort of the vertices by grid cell: cell c holds order[start[c]:start[c+1]],
    in increasing id (stable), cells numbered x-fastest."""
    n = p.shape[0]
    scale = ncell / (BOX_HI - BOX_LO)
    start = np.zeros(ncell**dim + 1, np.int64)
    cell = np.empty(n, np.int64)
    for v in range(n):
        c = 0
        stride = 1
        for a in range(dim):
            c += min(max(int((p[v, a] - BOX_LO) * scale), 0), ncell - 1) * stride
            stride *= ncell
        cell[v] = c
        start[c + 1] += 1
    for c in range(ncell**dim):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    order = np.empty(n, np.int64)
    for v in range(n):
        order[fill[cell[v]]] = v
        fill[cell[v]] += 1
    return start, order


@njit(**NUMBA_FLAGS)
def _repel_grid(p, lo, hi, k2, ncell, dim, start, order, disp):
    """FR's grid variant: repulsion from vertices in the 3^dim cells around u's cell that
    lie closer than 2k. Vertices are visited in cell order (cache locality); the sum for
    each vertex runs in a fixed order whatever the visiting order."""
    scale = ncell / (BOX_HI - BOX_LO)
    cut2 = 4.0 * k2
    home = np.zeros(3, np.int64)
    for j in range(order.shape[0]):
        u = order[j]
        if u < lo or u >= hi:
            continue
        for a in range(dim):
            home[a] = min(max(int((p[u, a] - BOX_LO) * scale), 0), ncell - 1)
        fx = fy = fz = 0.0
        for o in range(3**dim):  # the neighbouring cells, fixed order
            c = 0
            stride = 1
            rest = o
            ok = True
            for a in range(dim):
                i = home[a] + rest % 3 - 1
                rest //= 3
                if i < 0 or i >= ncell:
                    ok = False
                c += i * stride
                stride *= ncell
            if not ok:
                continue
            for t in range(start[c], start[c + 1]):
                v = order[t]
                dx = p[u, 0] - p[v, 0]
                dy = p[u, 1] - p[v, 1]
                dz = p[u, 2] - p[v, 2]
                if v != u and dx * dx + dy * dy + dz * dz < cut2:
                    a, b, cc = _rep(dx, dy, dz, u, v, k2, dim)
                    fx += a
                    fy += b
                    fz += cc
        _add_force(disp, u - lo, fx, fy, fz)


@njit(**NUMBA_FLAGS)
def _attract(p, verts, rows, indptr, indices, weights, has_w, k, disp):
    """Attraction on the vertices ``verts``, added to ``disp[rows[i]]`` for ``verts[i]``
    (pass ``verts`` in increasing id: the CSR rows are then read in order)."""
    inv_k = 1.0 / k
    for i in range(verts.shape[0]):
        u = verts[i]
        fx = fy = fz = 0.0
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            dx = p[v, 0] - p[u, 0]
            dy = p[v, 1] - p[u, 1]
            dz = p[v, 2] - p[u, 2]
            f = math.sqrt(dx * dx + dy * dy + dz * dz) * inv_k  # d^2/k along (p_v - p_u)/d
            if has_w:
                f *= weights[e]
            fx += dx * f
            fy += dy * f
            fz += dz * f
        _add_force(disp, rows[i], fx, fy, fz)


@njit(**NUMBA_FLAGS)
def _move(pos, verts, disp, gravity, temp):
    """New positions of ``verts``: gravity added, the move capped at the temperature."""
    dim = pos.shape[1]
    out = np.empty((verts.shape[0], dim), np.float64)
    for i in range(verts.shape[0]):
        u = verts[i]
        s = 0.0
        for c in range(dim):
            disp[i, c] -= gravity * (pos[u, c] - 0.5)  # a linear pull to the frame's centre
            s += disp[i, c] * disp[i, c]
        s = math.sqrt(s)
        scale = temp / s if s > temp else 1.0  # move at most the temperature
        for c in range(dim):
            x = pos[u, c] + disp[i, c] * scale
            out[i, c] = min(max(x, BOX_LO), BOX_HI)  # the walls
    return out


@njit(**NUMBA_FLAGS)
def _as3(pos):
    """(n, 3) copy of the positions, z = 0 in 2-D."""
    n, dim = pos.shape
    p = np.zeros((n, 3), np.float64)
    p[:, :dim] = pos
    return p


@njit(**NUMBA_FLAGS)
def _fr_step(pos, lo, hi, indptr, indices, weights, has_w, k, method, ncell, gravity, temp):
    """One FR iteration (exact or grid) for vertices lo..hi-1: their new positions."""
    dim = pos.shape[1]
    p = _as3(pos)
    disp = np.zeros((hi - lo, 3), np.float64)
    if method == 0:
        _repel_exact(p, lo, hi, k * k, dim, disp)
    else:
        start, order = _grid_build(p, ncell, dim)
        _repel_grid(p, lo, hi, k * k, ncell, dim, start, order, disp)
    verts = np.arange(lo, hi)
    _attract(p, verts, verts - lo, indptr, indices, weights, has_w, k, disp)
    return _move(pos, verts, disp, gravity, temp)
