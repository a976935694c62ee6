"""The coarse layout (step 3 of the package docstring).

Given the coarse nodes (masses, disc radii, weighted edges), :func:`_coarse_peer` returns
their Fruchterman-Reingold positions with masses (a ``run_bsp`` peer program, one node
range per peer) and :func:`_separate` pushes overlapping discs apart.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from hpgraph.algorithms.layout import BOX_HI, BOX_LO
from hpgraph.config import NUMBA_FLAGS

__all__ = ["SEPARATION_SWEEPS"]


#: At most this many overlap-removal sweeps over the coarse discs (each O(K log K + pairs
#: overlapping in x)); they stop once no two discs overlap by more than k / 10.
SEPARATION_SWEEPS = 50


@njit(**NUMBA_FLAGS)
def _coarse_step(p, dim, mass, rad, lo, hi, indptr, indices, w, k, gravity, temp):
    """One FR iteration with masses for coarse nodes lo..hi-1 (``p``: (nodes, 3), z = 0 in
    2-D): their new positions. Forces act on the gap between the nodes' discs (centre
    distance minus both radii, at least k / 10 for repulsion, 0 for attraction)."""
    kn = p.shape[0]
    k2 = k * k
    inv_k = 1.0 / k
    floor = 0.1 * k
    out = np.zeros((hi - lo, 3), np.float64)
    for u in range(lo, hi):
        ux, uy, uz, ru = p[u, 0], p[u, 1], p[u, 2], rad[u]
        fx = fy = fz = 0.0
        for v in range(kn):
            dx, dy, dz = ux - p[v, 0], uy - p[v, 1], uz - p[v, 2]
            d = math.sqrt(dx * dx + dy * dy + dz * dz)
            if d > 1e-9 * k:
                s = k2 * mass[v] / (max(d - ru - rad[v], floor) * d)
                fx += dx * s
                fy += dy * s
                fz += dz * s
            elif v != u:  # coincident: push along an axis picked by the pair
                s = k * mass[v] * (1.0 if u > v else -1.0)
                a = (u + v) % dim
                fx += s if a == 0 else 0.0
                fy += s if a == 1 else 0.0
                fz += s if a == 2 else 0.0
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            dx, dy, dz = p[v, 0] - ux, p[v, 1] - uy, p[v, 2] - uz
            d = math.sqrt(dx * dx + dy * dy + dz * dz)
            gap = max(d - ru - rad[v], 0.0)
            s = gap * gap * inv_k * w[e] / (mass[u] * max(d, 1e-300))
            fx += dx * s
            fy += dy * s
            fz += dz * s
        fx -= gravity * (ux - 0.5)
        fy -= gravity * (uy - 0.5)
        if dim == 3:
            fz -= gravity * (uz - 0.5)
        s = math.sqrt(fx * fx + fy * fy + fz * fz)
        scale = temp / s if s > temp else 1.0
        out[u - lo, 0] = min(max(ux + fx * scale, BOX_LO), BOX_HI)
        out[u - lo, 1] = min(max(uy + fy * scale, BOX_LO), BOX_HI)
        if dim == 3:
            out[u - lo, 2] = min(max(uz + fz * scale, BOX_LO), BOX_HI)
    return out


@njit(**NUMBA_FLAGS)
def _separate(pos, rad, mass, sweeps, tol):
    """Pushes overlapping discs apart (synchronous sweeps: every pair's overlap split
    between its two discs, the lighter one moved further, half the overlap per sweep)
    until none overlaps by more than ``tol`` or ``sweeps`` are done. Pairs are found by
    sweep and prune along x (discs sorted by their left edge). Returns the sweeps."""
    kn, dim = pos.shape
    disp = np.empty((kn, dim), np.float64)
    for sweep in range(sweeps):
        disp[:] = 0.0
        worst = 0.0
        order = np.argsort(pos[:, 0] - rad)
        for ii in range(kn):
            i = order[ii]
            right = pos[i, 0] + rad[i]
            for jj in range(ii + 1, kn):
                j = order[jj]
                if pos[j, 0] - rad[j] >= right:
                    break
                d2 = 0.0
                for a in range(dim):
                    d2 += (pos[i, a] - pos[j, a]) ** 2
                reach = rad[i] + rad[j]
                if d2 >= reach * reach:
                    continue
                d = math.sqrt(d2)
                over = reach - d
                worst = max(worst, over)
                share_i = mass[j] / (mass[i] + mass[j])
                if d > 1e-12 * reach:
                    for a in range(dim):
                        u = (pos[i, a] - pos[j, a]) / d * 0.5 * over
                        disp[i, a] += u * share_i
                        disp[j, a] -= u * (1.0 - share_i)
                else:  # coincident: apart along an axis picked by the pair
                    a = (i + j) % dim
                    sgn = 1.0 if i > j else -1.0
                    disp[i, a] += sgn * 0.5 * over * share_i
                    disp[j, a] -= sgn * 0.5 * over * (1.0 - share_i)
        if worst <= tol:
            return sweep
        pos += disp
    return sweeps


def _exchange(peer, pos, new, offsets):
    """One superstep: this peer's new rows ``new`` to every other peer, and every peer's
    rows (``offsets``: the row ranges) into ``pos``."""
    for q in range(peer.num_peers):
        if q != peer.pid:
            peer.send(q, new)
    peer.sync()
    pos[offsets[peer.pid] : offsets[peer.pid + 1]] = new
    for src, block in peer.messages():
        pos[offsets[src] : offsets[src + 1]] = block


def _coarse_peer(peer, pos0, mass, rad, indptr, indices, w, k, gravity, temps):
    """Coarse FR, one node range per peer; every peer holds every position."""
    (kn, dim), P = pos0.shape, peer.num_peers
    offsets = [kn * p // P for p in range(P + 1)]
    lo, hi = offsets[peer.pid], offsets[peer.pid + 1]
    pos = np.zeros((kn, 3), np.float64)
    pos[:, :dim] = pos0
    for t in temps:
        new = _coarse_step(pos, dim, mass, rad, lo, hi, indptr, indices, w, k, gravity, t)
        _exchange(peer, pos, new, offsets)
    return pos[:, :dim].copy() if peer.pid == 0 else None
