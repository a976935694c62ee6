"""The refinement on the whole graph (step 5 of the package docstring).

Given positions in the unit frame, :func:`_refine_peer` returns them after Fruchterman-
Reingold iterations whose repulsion comes from the centres of mass of the 3^dim cells
around each vertex (:func:`_cell_sums`, :func:`_refine_step`); a ``run_bsp`` peer
program, one vertex range per peer, over the vertices renumbered in cell order
(:func:`_permuted_csr`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from hpgraph.algorithms.community_layout.coarse import _exchange
from hpgraph.algorithms.layout import _Progress
from hpgraph.config import NUMBA_FLAGS

__all__: list[str] = []


def _cell_sums(p, dim, ncell):
    """Every vertex's cell (side 1/ncell over the unit frame, outside clamped to the
    border cells) and each cell's vertex count and coordinate sums (in vertex order), in
    fresh arrays: (cell, cnt, sums)."""
    out = _cell_arrays(p.shape[0], dim, ncell)
    _fill_cell_sums(p, dim, ncell, *out)
    return out


def _cell_arrays(n, dim, ncell):
    """Unfilled (cell, cnt, sums) arrays for :func:`_fill_cell_sums`."""
    cells = ncell**dim
    return np.empty(n, np.int64), np.empty(cells, np.float64), np.empty((cells, 3), np.float64)


@njit(**NUMBA_FLAGS)
def _fill_cell_sums(p, dim, ncell, cell, cnt, sums):
    """:func:`_cell_sums` into the given arrays (kept from one iteration to the next: a
    fresh 32 B per cell each time costs page faults, as much as the sums themselves)."""
    cnt[:] = 0.0
    sums[:] = 0.0
    for v in range(p.shape[0]):
        c = 0
        stride = 1
        for a in range(dim):
            c += _cell_index(p[v, a], ncell) * stride
            stride *= ncell
        cell[v] = c
        cnt[c] += 1.0
        sums[c, 0] += p[v, 0]
        sums[c, 1] += p[v, 1]
        sums[c, 2] += p[v, 2]


@njit(**NUMBA_FLAGS, inline="always")
def _cell_index(x, ncell):
    """The cell of coordinate x along one axis (outside the frame: the border cell)."""
    return min(max(int(x * ncell), 0), ncell - 1)


@njit(**NUMBA_FLAGS, inline="always")
def _repulsion(u, dim, k, m, dx, dy, dz):
    """The push ``m k^2 / d`` on a vertex at offset (dx, dy, dz) from the centre of mass
    of m vertices (d at least k/2); at the centre itself, ``k m`` along an axis that the
    vertex picks (u mod dim)."""
    k2 = k * k
    d2 = dx * dx + dy * dy + dz * dz
    if d2 > 1e-18 * k2:
        f = k2 * m / max(d2, 0.25 * k2)
        return dx * f, dy * f, dz * f
    a = u % dim
    return (k * m if a == 0 else 0.0), (k * m if a == 1 else 0.0), (k * m if a == 2 else 0.0)


@njit(**NUMBA_FLAGS, inline="always")
def _moved(u, ux, uy, uz, fx, fy, fz, temp, tscale):
    """Vertex u's new position: its force capped at its temperature ``temp * tscale[u]``."""
    s = math.sqrt(fx * fx + fy * fy + fz * fz)
    tu = temp * tscale[u]
    scale = tu / s if s > tu else 1.0
    return ux + fx * scale, uy + fy * scale, uz + fz * scale


@njit(**NUMBA_FLAGS)
def _step_2d(p, lo, hi, indptr, indices, k, temp, tscale, ncell, cell, cnt, sums):
    """:func:`_refine_step` in 2-D: the 3 x 3 cells around the vertex's own, walked by
    row and column from its position (no division of the cell id), and no z terms."""
    inv_k = 1.0 / k
    out = np.empty((hi - lo, 3), np.float64)
    for u in range(lo, hi):
        ux, uy = p[u, 0], p[u, 1]
        fx = fy = 0.0
        home = cell[u]
        hx, hy = _cell_index(ux, ncell), _cell_index(uy, ncell)
        for iy in range(max(hy - 1, 0), min(hy + 1, ncell - 1) + 1):
            for ix in range(max(hx - 1, 0), min(hx + 1, ncell - 1) + 1):
                c = ix + ncell * iy
                m, sx, sy = cnt[c], sums[c, 0], sums[c, 1]
                if c == home:  # the vertex itself left out
                    m, sx, sy = m - 1.0, sx - ux, sy - uy
                if m > 0.0:
                    gx, gy, _ = _repulsion(u, 2, k, m, ux - sx / m, uy - sy / m, 0.0)
                    fx += gx
                    fy += gy
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            dx, dy = p[v, 0] - ux, p[v, 1] - uy
            f = math.sqrt(dx * dx + dy * dy) * inv_k
            fx += dx * f
            fy += dy * f
        out[u - lo, 0], out[u - lo, 1], _ = _moved(u, ux, uy, 0.0, fx, fy, 0.0, temp, tscale)
        out[u - lo, 2] = 0.0
    return out


@njit(**NUMBA_FLAGS)
def _step_3d(p, lo, hi, indptr, indices, k, temp, tscale, ncell, cell, cnt, sums):
    """:func:`_refine_step` in 3-D: the 3 x 3 x 3 cells around the vertex's own."""
    inv_k = 1.0 / k
    out = np.empty((hi - lo, 3), np.float64)
    for u in range(lo, hi):
        ux, uy, uz = p[u, 0], p[u, 1], p[u, 2]
        fx = fy = fz = 0.0
        home = cell[u]
        hx, hy, hz = _cell_index(ux, ncell), _cell_index(uy, ncell), _cell_index(uz, ncell)
        for iz in range(max(hz - 1, 0), min(hz + 1, ncell - 1) + 1):
            for iy in range(max(hy - 1, 0), min(hy + 1, ncell - 1) + 1):
                for ix in range(max(hx - 1, 0), min(hx + 1, ncell - 1) + 1):
                    c = ix + ncell * (iy + ncell * iz)
                    m, sx, sy, sz = cnt[c], sums[c, 0], sums[c, 1], sums[c, 2]
                    if c == home:  # the vertex itself left out
                        m, sx, sy, sz = m - 1.0, sx - ux, sy - uy, sz - uz
                    if m > 0.0:
                        gx, gy, gz = _repulsion(u, 3, k, m, ux - sx / m, uy - sy / m, uz - sz / m)
                        fx += gx
                        fy += gy
                        fz += gz
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            dx, dy, dz = p[v, 0] - ux, p[v, 1] - uy, p[v, 2] - uz
            f = math.sqrt(dx * dx + dy * dy + dz * dz) * inv_k
            fx += dx * f
            fy += dy * f
            fz += dz * f
        out[u - lo, 0], out[u - lo, 1], out[u - lo, 2] = _moved(
            u, ux, uy, uz, fx, fy, fz, temp, tscale
        )
    return out


def _refine_step(p, dim, lo, hi, indptr, indices, k, temp, tscale, ncell, cell, cnt, sums):
    """One refinement iteration for vertices lo..hi-1 (their new positions, (hi - lo, 3)):
    attraction d^2/k along every simple-view edge, and from each of the 3^dim cells
    around the vertex's own a repulsion ``m k^2 / d`` from the centre of mass of its m
    vertices (the vertex itself left out of its own cell; d at least k/2): O(degree +
    3^dim) per vertex whatever the density, so crowded places spread instead of costing
    quadratic time. One kernel per dimension: 1.3-1.5x less time than one loop over the
    3^dim offsets (its divisions of the cell id and, in 2-D, its zero z terms), with the
    same sums in the same order, so the same bits."""
    step = _step_2d if dim == 2 else _step_3d
    return step(p, lo, hi, indptr, indices, k, temp, tscale, ncell, cell, cnt, sums)


@njit(**NUMBA_FLAGS)
def _permuted_csr(indptr, indices, order):
    """The CSR of the graph renumbered so that new vertex i is old ``order[i]``."""
    n = order.shape[0]
    inv = np.empty(n, np.int64)
    for i in range(n):
        inv[order[i]] = i
    ptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        v = order[i]
        ptr[i + 1] = ptr[i] + indptr[v + 1] - indptr[v]
    idx = np.empty(ptr[n], indices.dtype)
    for i in range(n):
        v = order[i]
        t = ptr[i]
        for e in range(indptr[v], indptr[v + 1]):
            idx[t] = inv[indices[e]]
            t += 1
    return ptr, idx


def _refine_peer(peer, pos0, indptr, indices, k, temps, tscale, ncell, progress):
    """The refinement, one vertex range per peer; every peer holds every position and
    builds its own copy of the cell sums (the same on every peer)."""
    (n, dim), P = pos0.shape, peer.num_peers
    offsets = [n * q // P for q in range(P + 1)]
    lo, hi = offsets[peer.pid], offsets[peer.pid + 1]
    pos = np.zeros((n, 3), np.float64)
    pos[:, :dim] = pos0
    show = _Progress(len(temps)) if progress and peer.pid == 0 else None
    sums = _cell_arrays(n, dim, ncell)  # filled anew every iteration
    for it, t in enumerate(temps):
        _fill_cell_sums(pos, dim, ncell, *sums)
        new = _refine_step(pos, dim, lo, hi, indptr, indices, k, t, tscale, ncell, *sums)
        _exchange(peer, pos, new, offsets)
        if show is not None:
            show.update(it + 1)
    del sums
    if show is not None:
        show.close()
    return pos[:, :dim].copy() if peer.pid == 0 else None
