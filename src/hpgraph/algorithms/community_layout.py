"""Multilevel force-directed layout by communities. Given a graph and a community for every
vertex (a BMLPA cover's strongest community, or any one label per vertex), returns a
position for every vertex in 2-D or 3-D (columns ``x``, ``y`` and ``z``), float64, inside
the unit square (cube): the drawing is centred and its longest side spans ``[0, 1]``.

The scheme is Walshaw's multilevel Fruchterman-Reingold ("A multilevel algorithm for
force-directed graph drawing", JGAA 7(3), 2003) with the coarsening given by the
communities instead of matchings, all-pairs forces only on the coarsest level (as sfdp
and OpenOrd), and a cheap local refinement on the whole graph:

1. **Communities.** Each vertex's community (a leader, when given, is moved into the
   community it leads, the largest one when it leads several) is renumbered 0..C-1; its
   size is its member count. The community graph joins two communities by the number of
   edges of the undirected simple view (directions ignored, parallel edges merged,
   self-loops dropped) whose ends lie in them.
2. **Groups.** Communities are ranked by size (ties: smaller id first); the ``top``
   largest are the coarse nodes. Every other community's parent is its most-connected
   neighbour among the higher-ranked communities (ties: the higher ranked); the parent
   links form trees rooted at the top communities and at "orphans" (no higher-ranked
   neighbour). Then, until nothing changes, an orphan tree with edges to a tree of a
   higher-ranked root hangs its root under the community of such a tree it has most
   edges to, so in the end an orphan tree is a union of connected components with no top
   community (stars, chains, small groups). A top community's node holds its tree; the
   orphan trees are packed, in rank order, into ``max(1, top // 8)`` bins of about equal
   vertex count, one node each.
3. **Coarse layout.** The coarse nodes are laid out by FR with masses (a node stands for
   its m vertices collapsed into a disc, or ball, of area ``m k^dim``, ``k = (1/n)^(1/dim)``,
   n the vertex count): repulsion ``m_v k^2 / gap`` from node v and attraction
   ``(w_uv / m_u) gap^2 / k`` (w the simple-view edges between them), ``gap`` the distance
   between the two discs' rims (at least k/10 for repulsion), gravity and cooling as
   :func:`~hpgraph.algorithms.layout.layout`, all pairs summed exactly, for
   ``top_iterations`` iterations from ``default_rng(seed)`` positions; then up to
   :data:`SEPARATION_SWEEPS` sweeps push overlapping discs apart (the lighter further).
4. **Placement**, nested, on "mass sunflowers": in a node's disc its trees (a bin has
   several), heaviest at the centre, tree j at radius ``R ((M_<j + m_j / 2) / M)^(1/dim)``
   (``M_<j`` the mass before it, ``M`` the total) and the golden angle times j (3-D: the
   R2 low-discrepancy sequence on the sphere), in a disc of radius ``R (m_j / M)^(1/dim)``.
   In a tree, a community sits at the centre of its subtree's disc with its children's
   discs around it; in a community's own disc, its members: each member's parent is its
   highest-ranked neighbour in the community (rank: the leader first, then degree
   descending, then id), so leaves sit around their hubs and hubs around the community's
   centre. A member with neighbours in other communities takes, of the next ``window``
   free slots of its parent's sunflower, the one pointing closest to those communities.
   Members are spread about one per ``k^dim``; leaders are then swapped with the member
   nearest their community's centroid.
5. **Refinement.** The drawing is scaled into the frame (k with it) and ``refine``
   iterations move every vertex at once: attraction ``d^2 / k`` along each simple-view
   edge, and repulsion ``m k^2 / d`` from the centre of mass of the m vertices of each
   of the 3^dim cells (side about 2k) around it (itself left out; d at least k/2), so a
   crowded place spreads at O(1) cost per vertex instead of FR-grid's quadratic one; no
   gravity. The temperature falls linearly from ``refine_temperature * k``, scaled down
   for each vertex so that it travels at most its community's radius, or the median
   vertex's community's if larger (the refinement rearranges inside communities and
   does not dissolve them). Leaders are swapped back to their
   community's centroid, and the drawing is scaled into the unit frame.

Deterministic for a seed and bitwise identical for any number of threads or MPI ranks:
steps 3 and 5 are :func:`~hpgraph.engine.bsp.run_bsp` peer programs in which every
vertex's move is a fixed-order sum over positions (and cell sums) that every peer holds
in full; the rest is sequential. Cost: O(n + m) for steps 1, 2, 4 plus sorts of the
cross-community edges and of the vertices by (community, degree); O(K^2) per coarse
iteration and per separation sweep (K = ``top + top // 8`` nodes at most); O(n + m) per
refinement iteration (each peer also builds the cell sums, O(n + cells)).
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from hpgraph.algorithms._common import check_graph
from hpgraph.algorithms.layout import BOX_HI, BOX_LO, T0, _Progress, _whole
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.bsp import run_bsp
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.views import simple_view
from hpgraph.result import VertexResult

__all__ = ["community_layout"]

_COLS = ("x", "y", "z")
#: At most this many overlap-removal sweeps over the coarse discs (each O(K log K + pairs
#: overlapping in x)); they stop once no two discs overlap by more than k / 10.
SEPARATION_SWEEPS = 50
_GOLDEN = math.pi * (3.0 - math.sqrt(5.0))  # the golden angle
_R2A, _R2B = 0.7548776662466927, 0.5698402909980532  # R2 sequence (plastic number)


# ---------------------------------------------------------------------------------------
# compiled kernels: arrays and scalars only


@njit(**NUMBA_FLAGS)
def _cross_keys(indptr, indices, cid, ncomm):
    """``min * ncomm + max`` of the two communities of every simple-view edge u < v whose
    ends lie in different communities."""
    n = indptr.shape[0] - 1
    cnt = 0
    for u in range(n):
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            if u < v and cid[u] != cid[v]:
                cnt += 1
    keys = np.empty(cnt, np.int64)
    cnt = 0
    for u in range(n):
        cu = cid[u]
        for e in range(indptr[u], indptr[u + 1]):
            v = indices[e]
            cv = cid[v]
            if u < v and cu != cv:
                keys[cnt] = min(cu, cv) * ncomm + max(cu, cv)
                cnt += 1
    return keys


@njit(**NUMBA_FLAGS)
def _attach(ea, eb, ew, rank, by_rank, ntop):
    """(parent, root) of every community: a top community (rank < ntop) is a root;
    another one's parent is its heaviest edge's other end among the higher-ranked
    communities (ties: the higher ranked), or none (-1: an orphan root)."""
    c = rank.shape[0]
    best_w = np.zeros(c, np.int64)
    best = np.full(c, -1, np.int64)
    for i in range(ea.shape[0]):
        a, b, w = ea[i], eb[i], ew[i]
        lo, hi = (a, b) if rank[a] > rank[b] else (b, a)  # lo: the lower ranked end
        if rank[lo] < ntop:
            continue
        if w > best_w[lo] or (w == best_w[lo] and rank[hi] < rank[best[lo]]):
            best_w[lo] = w
            best[lo] = hi
    root = np.empty(c, np.int64)
    for r in range(c):  # higher ranks first: a parent's root is known before its children
        x = by_rank[r]
        root[x] = x if best[x] < 0 else root[best[x]]
    return best, root


@njit(**NUMBA_FLAGS)
def _best_links(ta, eb, ew, rank, croot):
    """For (tree ta, community eb, weight) sums sorted by ta: the heaviest link of each
    tree to a community of a higher-ranked tree (ties: the higher-ranked community), as
    (tree roots, their new parents)."""
    out_t = np.empty(ta.shape[0], np.int64)
    out_b = np.empty(ta.shape[0], np.int64)
    cnt = 0
    i = 0
    while i < ta.shape[0]:
        t = ta[i]
        best = -1
        bw = 0.0
        while i < ta.shape[0] and ta[i] == t:
            b = eb[i]
            if rank[croot[b]] < rank[t] and (
                ew[i] > bw or (ew[i] == bw and best >= 0 and rank[b] < rank[best])
            ):
                best = b
                bw = ew[i]
            i += 1
        if best >= 0:
            out_t[cnt] = t
            out_b[cnt] = best
            cnt += 1
    return out_t[:cnt], out_b[:cnt]


@njit(**NUMBA_FLAGS)
def _topological(parent, by_rank):
    """Breadth-first order of a forest: the roots in ``by_rank`` order, then their
    children (each parent's in ``by_rank`` order), level by level."""
    c = parent.shape[0]
    start = np.zeros(c + 1, np.int64)
    for x in range(c):
        if parent[x] >= 0:
            start[parent[x] + 1] += 1
    for x in range(c):
        start[x + 1] += start[x]
    fill = start[:-1].copy()
    kids = np.empty(start[c], np.int64)
    order = np.empty(c, np.int64)
    head = 0
    for r in range(c):
        x = by_rank[r]
        if parent[x] >= 0:
            kids[fill[parent[x]]] = x
            fill[parent[x]] += 1
        else:
            order[head] = x
            head += 1
    for i in range(c):
        x = order[i]
        for j in range(start[x], start[x + 1]):
            order[head] = kids[j]
            head += 1
    return order


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


@njit(**NUMBA_FLAGS)
def _sunflower(order, parent, mass, ppos, prad, dim):
    """Positions and radii of children (``order``: same-parent children contiguous, the
    central one first) on their parent's mass sunflower (module docstring, step 4)."""
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
            if dim == 2:
                ang = q * _GOLDEN
                cpos[c, 0] = ppos[p, 0] + r * math.cos(ang)
                cpos[c, 1] = ppos[p, 1] + r * math.sin(ang)
            else:
                z = 1.0 - 2.0 * ((q * _R2A) % 1.0)
                ang = 2.0 * math.pi * ((q * _R2B) % 1.0)
                s = math.sqrt(max(0.0, 1.0 - z * z))
                cpos[c, 0] = ppos[p, 0] + r * s * math.cos(ang)
                cpos[c, 1] = ppos[p, 1] + r * s * math.sin(ang)
                cpos[c, 2] = ppos[p, 2] + r * z
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
        if dim == 2:
            ang = q * _GOLDEN
            pos[v, 0] = pos[p, 0] + r * math.cos(ang)
            pos[v, 1] = pos[p, 1] + r * math.sin(ang)
        else:
            z = 1.0 - 2.0 * ((q * _R2A) % 1.0)
            ang = 2.0 * math.pi * ((q * _R2B) % 1.0)
            s = math.sqrt(max(0.0, 1.0 - z * z))
            pos[v, 0] = pos[p, 0] + r * s * math.cos(ang)
            pos[v, 1] = pos[p, 1] + r * s * math.sin(ang)
            pos[v, 2] = pos[p, 2] + r * z


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
def _slot_dir(q, dim):
    """Unit direction of sunflower slot q: the golden angle times q (2-D), the R2
    sequence on the sphere (3-D)."""
    if dim == 2:
        ang = q * _GOLDEN
        return math.cos(ang), math.sin(ang), 0.0
    z = 1.0 - 2.0 * ((q * _R2A) % 1.0)
    ang = 2.0 * math.pi * ((q * _R2B) % 1.0)
    s = math.sqrt(max(0.0, 1.0 - z * z))
    return s * math.cos(ang), s * math.sin(ang), z


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
                for qq in range(first, first + window):
                    if not used[qq]:
                        dx, dy, dz = _slot_dir(qq + p, dim)
                        dot = dx * px + dy * py + dz * pz
                        if dot > best:
                            best = dot
                            q = qq
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


# ---------------------------------------------------------------------------------------
# orchestration


def _coarse_peer(peer, pos0, mass, rad, indptr, indices, w, k, gravity, temps):
    """Coarse FR, one node range per peer; every peer holds every position."""
    (kn, dim), P = pos0.shape, peer.num_peers
    offsets = [kn * p // P for p in range(P + 1)]
    lo, hi = offsets[peer.pid], offsets[peer.pid + 1]
    pos = np.zeros((kn, 3), np.float64)
    pos[:, :dim] = pos0
    for t in temps:
        new = _coarse_step(pos, dim, mass, rad, lo, hi, indptr, indices, w, k, gravity, t)
        for q in range(P):
            if q != peer.pid:
                peer.send(q, new)
        peer.sync()
        pos[lo:hi] = new
        for src, block in peer.messages():
            pos[offsets[src] : offsets[src + 1]] = block
    return pos[:, :dim].copy() if peer.pid == 0 else None


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
        for q in range(P):
            if q != peer.pid:
                peer.send(q, new)
        peer.sync()
        pos[lo:hi] = new
        for src, block in peer.messages():
            pos[offsets[src] : offsets[src + 1]] = block
        if show is not None:
            show.update(it + 1)
    if show is not None:
        show.close()
    return pos[:, :dim].copy() if peer.pid == 0 else None


def _symmetric_csr(a, b, w, kn):
    """CSR (rows sorted by source, stable) of the pairs a-b in both directions."""
    src = np.concatenate([a, b])
    dst = np.concatenate([b, a])
    ww = np.concatenate([w, w]).astype(np.float64)
    o = np.argsort(src, kind="stable")
    indptr = np.zeros(kn + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=kn), out=indptr[1:])
    return indptr, dst[o].astype(np.int64), ww[o]


def _frame(pos):
    """Scale and shift into the unit frame, centred: (positions, scale)."""
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    span = float((hi - lo).max())
    s = 1.0 / span if span > 0 else 1.0
    return (pos - lo) * s + (1.0 - (hi - lo) * s) / 2.0, s


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


def community_layout(
    graph,
    cover,
    *,
    leaders=None,
    dim=2,
    seed=0,
    threads=None,
    runtime=None,
    progress=False,
    top=1000,
    top_iterations=200,
    refine=30,
    refine_temperature=30.0,
    window=64,
):
    """Positions of every vertex inside the unit square (``dim=2``) or cube (``dim=3``),
    drawn community by community (the module docstring): a :class:`VertexResult` with
    float64 columns ``x``, ``y`` (``z``), ``algorithm="community_layout"``, and ``meta``
    holding the knobs, the counts (communities, coarse nodes, orphan bins) and the time of
    every stage in seconds.

    ``cover``: a :class:`~hpgraph.algorithms.bmlpa.BMLPAResult` (its ``community``
    column, each vertex's strongest community, is used) or one community id (>= 0) per
    vertex. ``leaders``: optional, an object with arrays ``community``, ``vertex``
    (internal ids) and ``rank`` (rank 1 is placed), or one leader vertex per community
    (-1: none); a leader is drawn at the centre of the community it leads. Knobs: ``top``
    coarse communities laid out with all-pairs forces for ``top_iterations`` iterations;
    ``refine`` refinement iterations on the whole graph starting at a temperature of
    ``refine_temperature`` natural edge lengths, or less for vertices of small
    communities (the cap in the module docstring); 0: the placement as it is;
    ``window``: sunflower slots a member with outside neighbours chooses from.
    ``threads``/``runtime``: as :func:`~hpgraph.engine.bsp.run_bsp` (the result does not
    depend on them); ``progress``: a progress bar for the refinement.
    """
    t_start = time.perf_counter()
    check_graph(graph)
    dim = _whole("dim", dim, 2)
    if dim > 3:
        raise InvalidArgumentError(f"dim must be 2 or 3, got {dim}")
    seed = _whole("seed", seed, 0)
    top = _whole("top", top, 1)
    top_iterations = _whole("top_iterations", top_iterations, 0)
    refine = _whole("refine", refine, 0)
    refine_temperature = _number("refine_temperature", refine_temperature, 0.0, 100.0)
    window = _whole("window", window, 1)
    n = graph.n
    comm = _communities(graph, cover)
    ncover = int(comm.max()) + 1 if n else 0
    if hasattr(cover, "sizes") and cover.sizes is not None:
        ncover = max(ncover, int(np.asarray(cover.sizes).shape[0]))
    lead_c = lead_v = np.zeros(0, np.int64)
    if leaders is not None:
        lead_c, lead_v = _leader_pairs(leaders, n, ncover)
    meta = {
        "dim": dim,
        "seed": seed,
        "top": top,
        "top_iterations": top_iterations,
        "refine": refine,
        "refine_temperature": refine_temperature,
        "window": window,
    }
    ball = math.pi if dim == 2 else 4.0 * math.pi / 3.0
    if n == 0:
        cols = {_COLS[a]: np.zeros(0) for a in range(dim)}
        return VertexResult("community_layout", graph, cols, meta=meta)
    times = {}
    t = time.perf_counter()

    # 1. communities (leaders moved into the largest community they lead)
    if lead_c.size:
        csize = np.bincount(comm, minlength=ncover)
        o = np.lexsort((lead_c, -csize[lead_c]))  # largest led community first
        lead_c, lead_v = lead_c[o], lead_v[o]
        _, first = np.unique(lead_v, return_index=True)
        comm = comm.copy()
        comm[lead_v[first]] = lead_c[first]
    uniq, cid = np.unique(comm, return_inverse=True)
    cid = cid.astype(np.int64).reshape(-1)
    ncomm = uniq.shape[0]
    size = np.bincount(cid, minlength=ncomm)
    is_leader = np.zeros(n, bool)
    if lead_c.size:
        led = np.searchsorted(uniq, lead_c)
        ok = (led < ncomm) & (uniq[np.minimum(led, ncomm - 1)] == lead_c)
        ok &= cid[lead_v] == np.minimum(led, ncomm - 1)  # the community it was moved into
        is_leader[lead_v[ok]] = True
    indptr, indices = simple_view(graph)
    keys, weight = np.unique(_cross_keys(indptr, indices, cid, ncomm), return_counts=True)
    ea, eb = keys // ncomm, keys % ncomm
    times["communities_s"] = time.perf_counter() - t
    t = time.perf_counter()

    # 2. groups: ranks, attachment forest, top nodes and orphan bins
    by_rank = np.lexsort((np.arange(ncomm), -size))
    rank = np.empty(ncomm, np.int64)
    rank[by_rank] = np.arange(ncomm)
    ntop = min(top, ncomm)
    cpar, root = _attach(ea, eb, weight.astype(np.int64), rank, by_rank, ntop)
    rounds = 1
    while True:  # orphan trees join their most-connected higher-ranked neighbour tree
        ta, tb = root[ea], root[eb]
        cross = ta != tb
        if not cross.any():
            break
        lt = np.concatenate([ta[cross], tb[cross]])
        lb = np.concatenate([eb[cross], ea[cross]])
        lk, linv = np.unique(lt * ncomm + lb, return_inverse=True)
        lw = np.bincount(linv.reshape(-1), weights=np.tile(weight[cross], 2))
        jt, jb = _best_links(lk // ncomm, lk % ncomm, lw, rank, root)
        jt, jb = jt[rank[jt] >= ntop], jb[rank[jt] >= ntop]
        if jt.shape[0] == 0:
            break
        rounds += 1
        cpar[jt] = jb
        hop = np.arange(ncomm)
        hop[jt] = root[jb]
        while True:  # pointer jumping: every tree root to its final root
            nxt = hop[hop]
            if np.array_equal(nxt, hop):
                break
            hop = nxt
        root = hop[root]
    roots = by_rank[root[by_rank] == by_rank]  # in rank order
    gmass = np.bincount(root, weights=size, minlength=ncomm)
    orphans = roots[ntop:]
    nbins = min(orphans.shape[0], max(1, top // 8))
    node_of_root = np.full(ncomm, -1, np.int64)
    node_of_root[roots[:ntop]] = np.arange(ntop)
    if nbins:
        om = gmass[orphans]
        before = np.cumsum(om) - om
        node_of_root[orphans] = ntop + np.minimum((before * nbins) // om.sum(), nbins - 1)
    kn = ntop + nbins
    node = node_of_root[root]
    nmass = np.bincount(node, weights=size, minlength=kn)
    na, nb = node[ea], node[eb]
    cross = na != nb
    nkey, ninv = np.unique(np.minimum(na, nb)[cross] * kn + np.maximum(na, nb)[cross],
                           return_inverse=True)  # fmt: skip
    nw = np.bincount(ninv.reshape(-1), weights=weight[cross], minlength=nkey.shape[0])
    times["groups_s"] = time.perf_counter() - t
    t = time.perf_counter()

    # 3. coarse layout with masses, then the discs' overlaps removed
    k = (1.0 / n) ** (1.0 / dim)
    cptr, cidx, cw = _symmetric_csr(nkey // kn, nkey % kn, nw, kn)
    pos0 = np.random.default_rng(seed).random((kn, dim))
    temps = T0 * (1.0 - np.arange(top_iterations) / max(top_iterations, 1))
    grav = float(n) ** (1.0 - 2.0 / dim)
    nrad = k * (nmass / ball) ** (1.0 / dim)  # area (volume) m k^dim
    res = run_bsp(
        _coarse_peer,
        peers=threads,
        args=(pos0, nmass, nrad, cptr, cidx, cw, k, grav, temps),
        runtime=runtime,
    )
    npos = res.results[0]
    sweeps = _separate(npos, nrad, nmass, SEPARATION_SWEEPS, 0.1 * k)
    times["coarse_s"] = time.perf_counter() - t
    t = time.perf_counter()

    # 4. nested placement: node -> trees -> communities -> members
    torder = roots[np.argsort(node_of_root[roots], kind="stable")]  # by node, then rank
    tpos, trad = _sunflower(torder, node_of_root, gmass, npos, nrad, dim)
    ctopo = _topological(cpar, by_rank)
    csize = size.astype(np.float64)
    csub = _subtree(ctopo, cpar, csize)
    cpos, crad = tpos, trad
    _place_forest(ctopo, cpar, csub, csize, cpos, crad, dim)
    crad = crad * (csize / csub) ** (1.0 / dim)  # the community's own members' disc
    deg = np.diff(indptr)
    dmax = int(deg.max()) + 2
    vkey = cid * dmax + np.where(is_leader, 0, dmax - 1 - deg)  # leader, degree desc
    vorder = np.argsort(vkey, kind="stable")
    par, sub = _vertex_forest(indptr, indices, cid, vorder)
    vroots = vorder[par[vorder] < 0]
    pos, rad = _sunflower(vroots, cid, sub, cpos, crad, dim)
    pref = _preferences(indptr, indices, cid, cpos)
    _place_members(vorder, par, sub, pos, rad, pref, window)
    del pref
    leader = np.full(ncomm, -1, np.int64)
    leader[cid[is_leader]] = np.flatnonzero(is_leader)
    if is_leader.any():
        _leaders_to_centroids(pos, cid, ncomm, leader)
    pos, scale = _frame(pos)
    times["place_s"] = time.perf_counter() - t
    t = time.perf_counter()

    # 5. refinement: FR's grid variant on the whole graph, cool
    stats = res.stats
    if refine:
        kr = k * scale
        # moves stay local: a vertex travels (sum of its temperatures) at most the
        # radius of its community, or of the median vertex's if that is larger
        t0 = refine_temperature * kr
        local = kr * (np.maximum(size, np.median(size[cid])) / ball) ** (1.0 / dim)
        tscale = np.minimum(1.0, 2.0 * local / (refine * t0))[cid]
        rtemps = t0 * (1.0 - np.arange(refine) / refine)
        ncell = max(1, min(int(1.0 / (2.0 * kr)), int((4 * n) ** (1.0 / dim))))
        # vertices renumbered in cell order for the refinement (memory locality: the
        # cell sums are built in order, a peer's vertices and most edges are near)
        p3 = np.zeros((n, 3), np.float64)
        p3[:, :dim] = pos
        corder = np.argsort(_cell_sums(p3, dim, ncell)[0], kind="stable")
        del p3
        rptr, ridx = _permuted_csr(indptr, indices, corder)
        res = run_bsp(
            _refine_peer,
            peers=threads,
            args=(pos[corder], rptr, ridx, kr, rtemps, tscale[corder], ncell, progress),
            runtime=runtime,
        )
        del rptr, ridx, tscale
        pos = np.empty_like(pos)
        pos[corder] = res.results[0]
        pos, _ = _frame(pos)
        stats = res.stats
        if is_leader.any():  # back to the centre after the refinement's moves
            _leaders_to_centroids(pos, cid, ncomm, leader)
    times["refine_s"] = time.perf_counter() - t
    times["total_s"] = time.perf_counter() - t_start
    meta.update(
        communities=int(ncomm),
        cross_pairs=int(keys.shape[0]),
        coarse_nodes=int(kn),
        orphan_bins=int(nbins),
        attach_rounds=rounds,
        separation_sweeps=int(sweeps),
        peers=len(res.results),
        **times,
    )
    return VertexResult(
        algorithm="community_layout",
        graph=graph,
        columns={_COLS[a]: np.ascontiguousarray(pos[:, a]) for a in range(dim)},
        stats=stats,
        meta=meta,
    )
