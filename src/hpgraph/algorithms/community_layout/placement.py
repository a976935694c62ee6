"""Nested placement on mass sunflowers (step 4 of the package docstring).

Given the coarse nodes' discs, the community forest and the vertex forest of every
community, returns a position for every vertex: trees in their node's disc, communities
in their tree's, members in their community's (a member with outside neighbours takes the
free slot pointing closest to them), leaders swapped to their community's centroid.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__: list[str] = []


_GOLDEN = math.pi * (3.0 - math.sqrt(5.0))  # the golden angle


_R2A, _R2B = 0.7548776662466927, 0.5698402909980532  # R2 sequence (plastic number)


@njit(**NUMBA_FLAGS, inline="always")
def _slot(q, dim):
    """Sunflower slot q as (angle, s, z): the golden angle times q on the circle (2-D:
    s = 1, z = 0), the R2 sequence on the sphere (3-D: height z, s = sqrt(1 - z^2))."""
    if dim == 2:
        return q * _GOLDEN, 1.0, 0.0
    z = 1.0 - 2.0 * ((q * _R2A) % 1.0)
    ang = 2.0 * math.pi * ((q * _R2B) % 1.0)
    return ang, math.sqrt(max(0.0, 1.0 - z * z)), z


@njit(**NUMBA_FLAGS)
def _slot_dir(q, dim):
    """Unit direction of sunflower slot q (:func:`_slot`)."""
    ang, s, z = _slot(q, dim)
    return s * math.cos(ang), s * math.sin(ang), z


@njit(**NUMBA_FLAGS, inline="always")
def _put(pos, v, centre, p, r, q, dim):
    """``pos[v]``: slot q of the sunflower of radius r around ``centre[p]``."""
    ang, s, z = _slot(q, dim)
    pos[v, 0] = centre[p, 0] + r * s * math.cos(ang)
    pos[v, 1] = centre[p, 1] + r * s * math.sin(ang)
    if dim == 3:
        pos[v, 2] = centre[p, 2] + r * z


@njit(**NUMBA_FLAGS)
def _sunflower(order, parent, mass, ppos, prad, dim):
    """Positions and radii of children (``order``: same-parent children contiguous, the
    central one first) on their parent's mass sunflower (package docstring, step 4)."""
    nc = order.shape[0]
    cpos = np.empty((parent.shape[0], dim), np.float64)
    crad = np.empty(parent.shape[0], np.float64)
    inv = 1.0 / dim
    i = 0
    while i < nc:
        p = parent[order[i]]
        j = i
        total = 0.0
        while j < nc and parent[order[j]] == p:
            total += mass[order[j]]
            j += 1
        cum = 0.0
        for t in range(i, j):
            c = order[t]
            q = t - i
            m = mass[c]
            crad[c] = prad[p] * (m / total) ** inv
            r = 0.0 if q == 0 else prad[p] * ((cum + 0.5 * m) / total) ** inv
            cum += m
            _put(cpos, c, ppos, p, r, q, dim)
        i = j
    return cpos, crad


@njit(**NUMBA_FLAGS)
def _vertex_forest(indptr, indices, cid, vorder):
    """Parent of every vertex: its highest-ranked neighbour (rank: position in ``vorder``)
    in the same community when that one ranks above it, else -1 (a root); and the subtree
    sizes."""
    n = vorder.shape[0]
    rk = np.empty(n, np.int64)
    for i in range(n):
        rk[vorder[i]] = i
    par = np.full(n, -1, np.int64)
    for v in range(n):
        best = rk[v]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if cid[u] == cid[v] and rk[u] < best:
                best = rk[u]
        if best < rk[v]:
            par[v] = vorder[best]
    return par, _subtree(vorder, par, np.ones(n, np.float64))


@njit(**NUMBA_FLAGS)
def _subtree(order, par, own):
    """Subtree masses of a forest (``order``: parents before children)."""
    sub = own.copy()
    for i in range(order.shape[0] - 1, -1, -1):
        v = order[i]
        if par[v] >= 0:
            sub[par[v]] += sub[v]
    return sub


@njit(**NUMBA_FLAGS)
def _place_forest(vorder, par, sub, own, pos, rad, dim):
    """Places every non-root item of a forest on its parent's mass sunflower: the parent
    (mass ``own``) at the centre, its children (subtree masses ``sub``) in ``vorder``
    order around it. ``pos``/``rad`` of the roots are given, the others are filled in
    (``vorder``: parents before children)."""
    n = vorder.shape[0]
    cum = own.copy()  # mass placed so far on each parent's sunflower
    cnt = np.ones(n, np.int64)  # children placed so far, + 1
    inv = 1.0 / dim
    for i in range(n):
        v = vorder[i]
        p = par[v]
        if p < 0:
            continue
        m = sub[v]
        share = rad[p] / sub[p] ** inv
        r = share * (cum[p] + 0.5 * m) ** inv
        rad[v] = share * m**inv
        q = cnt[p] + p
        cum[p] += m
        cnt[p] += 1
        _put(pos, v, pos, p, r, q, dim)


@njit(**NUMBA_FLAGS)
def _preferences(indptr, indices, cid, cpos):
    """Every vertex's preferred direction: the sum of unit vectors from its community's
    centre towards the centres of its neighbours' other communities (0: none)."""
    n = cid.shape[0]
    dim = cpos.shape[1]
    pref = np.zeros((n, dim), np.float64)
    for v in range(n):
        c = cid[v]
        for e in range(indptr[v], indptr[v + 1]):
            u = indices[e]
            if cid[u] != c:
                d2 = 0.0
                for a in range(dim):
                    d2 += (cpos[cid[u], a] - cpos[c, a]) ** 2
                if d2 > 0.0:
                    inv = 1.0 / math.sqrt(d2)
                    for a in range(dim):
                        pref[v, a] += (cpos[cid[u], a] - cpos[c, a]) * inv
    return pref


@njit(**NUMBA_FLAGS)
def _place_members(vorder, par, sub, pos, rad, pref, window):
    """:func:`_place_forest` for the vertices, where a child with a preferred direction
    (``pref`` != 0) takes, of the next ``window`` free sunflower slots of its parent, the
    one pointing closest to it (children without one take the first free slot); the
    radius still follows the rank order, so the density stays even."""
    n = vorder.shape[0]
    dim = pos.shape[1]
    start = np.zeros(n + 1, np.int64)
    for v in range(n):
        if par[v] >= 0:
            start[par[v] + 1] += 1
    most = 0
    for v in range(n):
        most = max(most, start[v + 1])
        start[v + 1] += start[v]
    fill = start[:-1].copy()
    kids = np.empty(start[n], np.int64)
    for i in range(n):  # children in rank order
        v = vorder[i]
        if par[v] >= 0:
            kids[fill[par[v]]] = v
            fill[par[v]] += 1
    used = np.zeros(most + window + 1, np.bool_)
    inv = 1.0 / dim
    turn = _GOLDEN if dim == 2 else 2.0 * math.pi * _R2B  # slot q + 1's angle - slot q's
    cos_turn, sin_turn = math.cos(turn), math.sin(turn)
    for i in range(n):
        p = vorder[i]
        nk = start[p + 1] - start[p]
        if nk == 0:
            continue
        used[: nk + window + 1] = False
        first = 1  # the lowest free slot (slot 0: the parent itself)
        cum = 1.0
        share = rad[p] / sub[p] ** inv
        for t in range(start[p], start[p + 1]):
            v = kids[t]
            m = sub[v]
            r = share * (cum + 0.5 * m) ** inv
            rad[v] = share * m**inv
            cum += m
            while used[first]:
                first += 1
            q = first
            s2 = 0.0
            for a in range(dim):
                s2 += pref[v, a] * pref[v, a]
            if s2 > 0.0:
                best = -2.0
                ps = 1.0 / math.sqrt(s2)
                px = pref[v, 0] * ps
                py = pref[v, 1] * ps
                pz = pref[v, 2] * ps if dim == 3 else 0.0
                # the window's slot angles by turning the first one by the fixed step
                # between slots (two products per slot, not a cosine and a sine); the
                # slot taken is placed from its own angle below
                ang = _slot(first + p, dim)[0]
                c, sn = math.cos(ang), math.sin(ang)
                for qq in range(first, first + window):
                    if not used[qq]:
                        dx, dy, dz = c, sn, 0.0
                        if dim == 3:
                            dz = 1.0 - 2.0 * (((qq + p) * _R2A) % 1.0)
                            h = math.sqrt(max(0.0, 1.0 - dz * dz))
                            dx, dy = h * c, h * sn
                        dot = dx * px + dy * py + dz * pz
                        if dot > best:
                            best = dot
                            q = qq
                    c, sn = c * cos_turn - sn * sin_turn, sn * cos_turn + c * sin_turn
            used[q] = True
            dx, dy, dz = _slot_dir(q + p, dim)
            pos[v, 0] = pos[p, 0] + r * dx
            pos[v, 1] = pos[p, 1] + r * dy
            if dim == 3:
                pos[v, 2] = pos[p, 2] + r * dz


@njit(**NUMBA_FLAGS)
def _leaders_to_centroids(pos, cid, ncomm, leader):
    """Swaps each leader's position with that of the member of its community (``cid``)
    nearest to the community's centroid: the leader moves to the centre, the density
    stays as it was."""
    n, dim = pos.shape
    cen = np.zeros((ncomm, dim), np.float64)
    cnt = np.zeros(ncomm, np.int64)
    for v in range(n):
        cnt[cid[v]] += 1
        for a in range(dim):
            cen[cid[v], a] += pos[v, a]
    best = np.full(ncomm, -1, np.int64)
    bd = np.full(ncomm, np.inf)
    for v in range(n):
        c = cid[v]
        if leader[c] < 0:
            continue
        d2 = 0.0
        for a in range(dim):
            d2 += (pos[v, a] - cen[c, a] / cnt[c]) ** 2
        if d2 < bd[c]:
            bd[c] = d2
            best[c] = v
    for c in range(ncomm):
        u, v = leader[c], best[c]
        if u >= 0 and v >= 0:
            for a in range(dim):
                pos[u, a], pos[v, a] = pos[v, a], pos[u, a]


def _frame(pos):
    """Scale and shift into the unit frame, centred: (positions, scale)."""
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    span = float((hi - lo).max())
    s = 1.0 / span if span > 0 else 1.0
    return (pos - lo) * s + (1.0 - (hi - lo) * s) / 2.0, s
