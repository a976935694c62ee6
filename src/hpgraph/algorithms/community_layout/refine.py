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


@njit(**NUMBA_FLAGS)
def _cell_sums(p, dim, ncell):
    """Every vertex's cell (side 1/ncell over the unit frame, outside clamped to the
    border cells) and each cell's vertex count and coordinate sums (in vertex order)."""
    n = p.shape[0]
    cells = ncell**dim
    cell = np.empty(n, np.int64)
    cnt = np.zeros(cells, np.float64)
    sums = np.zeros((cells, 3), np.float64)
    for v in range(n):
        c = 0
        stride = 1
        for a in range(dim):
            c += min(max(int(p[v, a] * ncell), 0), ncell - 1) * stride
            stride *= ncell
        cell[v] = c
        cnt[c] += 1.0
        sums[c, 0] += p[v, 0]
        sums[c, 1] += p[v, 1]
        sums[c, 2] += p[v, 2]
    return cell, cnt, sums


@njit(**NUMBA_FLAGS)
def _refine_step(p, dim, lo, hi, indptr, indices, k, temp, tscale, ncell, cell, cnt, sums):
    """One refinement iteration for vertices lo..hi-1: attraction d^2/k along every
    simple-view edge, and from each of the 3^dim cells around the vertex's own a
    repulsion ``m k^2 / d`` from the centre of mass of its m vertices (the vertex itself
    left out of its own cell; d at least k/2): O(degree + 3^dim) per vertex whatever the
    density, so crowded places spread instead of costing quadratic time."""
    k2 = k * k
    inv_k = 1.0 / k
    floor2 = 0.25 * k2
    out = np.empty((hi - lo, 3), np.float64)
    for u in range(lo, hi):
        ux, uy, uz = p[u, 0], p[u, 1], p[u, 2]
        fx = fy = fz = 0.0
        home = cell[u]
        hx = home % ncell
        hy = (home // ncell) % ncell
        hz = home // (ncell * ncell) if dim == 3 else 0
        for o in range(3**dim):
            ix = hx + o % 3 - 1
            iy = hy + (o // 3) % 3 - 1
            iz = hz + (o // 9) - 1 if dim == 3 else 0
            if ix < 0 or iy < 0 or iz < 0 or ix >= ncell or iy >= ncell or iz >= ncell:
                continue
            c = ix + ncell * (iy + ncell * iz)
            m = cnt[c]
            sx, sy, sz = sums[c, 0], sums[c, 1], sums[c, 2]
            if c == home:
                m -= 1.0
                sx -= ux
                sy -= uy
                sz -= uz
            if m <= 0.0:
                continue
            dx, dy, dz = ux - sx / m, uy - sy / m, uz - sz / m
            d2 = dx * dx + dy * dy + dz * dz
            if d2 > 1e-18 * k2:
                f = k2 * m / max(d2, floor2)
                fx += dx * f
                fy += dy * f
                fz += dz * f
            else:  # at the centre of mass: out along an axis picked by the vertex
                a = u % dim
                fx += k * m if a == 0 else 0.0
                fy += k * m if a == 1 else 0.0
                fz += k * m if a == 2 else 0.0
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            dx, dy, dz = p[v, 0] - ux, p[v, 1] - uy, p[v, 2] - uz
            f = math.sqrt(dx * dx + dy * dy + dz * dz) * inv_k
            fx += dx * f
            fy += dy * f
            fz += dz * f
        s = math.sqrt(fx * fx + fy * fy + fz * fz)
        tu = temp * tscale[u]
        scale = tu / s if s > tu else 1.0
        out[u - lo, 0] = ux + fx * scale
        out[u - lo, 1] = uy + fy * scale
        out[u - lo, 2] = uz + fz * scale if dim == 3 else 0.0
    return out


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
    for it, t in enumerate(temps):
        cell, cnt, sums = _cell_sums(pos, dim, ncell)
        new = _refine_step(pos, dim, lo, hi, indptr, indices, k, t, tscale, ncell, cell, cnt, sums)
        del cell, cnt, sums
        _exchange(peer, pos, new, offsets)
        if show is not None:
            show.update(it + 1)
    if show is not None:
        show.close()
    return pos[:, :dim].copy() if peer.pid == 0 else None
