"""Barnes-Hut repulsion for the layout.

Given every position, :func:`_fr_step_bh` builds a quadtree (octree in 3-D) over the
bodies sorted by Morton key and returns a peer's new positions: repulsion from the
centres of mass of far cells, walked once per group of up to ``GROUP`` vertices, with
the attraction and the move of :mod:`.forces`.

The tree is built top-down over bodies sorted by Morton key, stored in preorder so the
walk needs no stack: open a node -> go to nd + 1 (its first child), accept it or finish a
leaf -> jump to skip[nd] (past its subtree). Per node: nodei = [first body, end body,
level, parent, skip, leaf?]; nodef = [cx, cy, cz, half width, com x, y, z,
(width / theta)^2]. A node's bodies are the contiguous range of the sorted arrays.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.algorithms.layout.forces import _TINY, BOX_HI, BOX_LO, _as3, _attract, _move, _rep
from hpgraph.config import NUMBA_FLAGS

__all__ = ["LEAF_CAP", "GROUP", "MAX_DEPTH"]


#: Barnes-Hut: bodies a leaf holds before it splits, and the depth where splitting stops
#: (a cell of width 2^-40 frames: only coincident points get that deep).
LEAF_CAP = 32


#: Barnes-Hut: vertices per group (the largest subtrees of at most this many share one
#: tree walk; larger groups walk less but sum more terms, which are vectorised).
GROUP = 128


MAX_DEPTH = 40


_LANES = 8  # vector width in float64 lanes (AVX-512; a multiple of AVX2's 4)


_BITS = 21  # Morton bits per axis: cells of 3 * 2^-21 frames; only ties share a leaf


@njit(**NUMBA_FLAGS)
def _morton(p, dim):
    n = p.shape[0]
    keys = np.zeros(n, np.int64)
    side = (1 << _BITS) / (BOX_HI - BOX_LO)
    for v in range(n):
        key = 0
        for a in range(dim):
            q = min(max(int((p[v, a] - BOX_LO) * side), 0), (1 << _BITS) - 1)
            for b in range(_BITS):
                key |= ((q >> b) & 1) << (b * dim + a)
        keys[v] = key
    return keys


@njit(**NUMBA_FLAGS)
def _radix_order(keys, bits):
    """Stable LSD radix sort of non-negative ``keys`` below 2^bits, 11 bits a pass:
    (order, sorted keys), ``order`` the same as a stable argsort (ties in index order).
    A pass whose digit is the same for every key is skipped (the frame fills only the
    middle of the box, so the top digits rarely vary)."""
    n = keys.shape[0]
    order = np.arange(n)
    tmp = np.empty(n, np.int64)
    cur = keys.copy()
    alt = np.empty(n, np.int64)
    mask = (1 << 11) - 1
    cnt = np.empty(mask + 2, np.int64)
    for shift in range(0, bits, 11):
        cnt[:] = 0
        for i in range(n):
            cnt[((cur[i] >> shift) & mask) + 1] += 1
        if cnt.max() == n:
            continue
        for d in range(mask + 1):
            cnt[d + 1] += cnt[d]
        for i in range(n):
            d = (cur[i] >> shift) & mask
            at = cnt[d]
            cnt[d] = at + 1
            alt[at] = cur[i]
            tmp[at] = order[i]
        cur, alt = alt, cur
        order, tmp = tmp, order
    return order, cur


@njit(**NUMBA_FLAGS)
def _grow(a, cap):
    b = np.empty((cap, a.shape[1]), a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(**NUMBA_FLAGS)
def _grow_cols(a, cap):
    b = np.empty((a.shape[0], cap), a.dtype)
    b[:, : a.shape[1]] = a
    return b


@njit(**NUMBA_FLAGS)
def _grow1(a, cap):
    b = np.empty(cap, a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(**NUMBA_FLAGS)
def _bh_build(p, dim, theta):
    """(nodei, nodef, number of nodes, body ids in Morton order, their positions)."""
    n = p.shape[0]
    nch = 1 << dim
    order, skeys = _radix_order(_morton(p, dim), _BITS * dim)  # stable: ties in id order
    bp = np.empty((n, 3), np.float64)
    for j in range(n):
        v = order[j]
        bp[j, 0], bp[j, 1], bp[j, 2] = p[v, 0], p[v, 1], p[v, 2]
    cap = max(64, 2 * n // LEAF_CAP + 64)  # grown on demand
    nodei = np.empty((cap, 6), np.int64)
    nodef = np.empty((cap, 8), np.float64)
    nn = 0
    # stack of nodes still to emit: (lo, hi, level, parent, centre, half)
    st_i = np.empty((nch * (_BITS + 2), 4), np.int64)
    st_f = np.empty((nch * (_BITS + 2), 4), np.float64)
    mid_box = 0.5 * (BOX_LO + BOX_HI)
    st_i[0, 0], st_i[0, 1], st_i[0, 2], st_i[0, 3] = 0, n, 0, -1
    st_f[0, 0], st_f[0, 1] = mid_box, mid_box
    st_f[0, 2] = mid_box if dim == 3 else 0.0
    st_f[0, 3] = 0.5 * (BOX_HI - BOX_LO)
    sp = 1 if n > 0 else 0
    while sp > 0:
        sp -= 1
        lo, hi, level, parent = st_i[sp, 0], st_i[sp, 1], st_i[sp, 2], st_i[sp, 3]
        if nn == nodei.shape[0]:
            nodei = _grow(nodei, 2 * nn)
            nodef = _grow(nodef, 2 * nn)
        nd = nn
        nn += 1
        leaf = hi - lo <= LEAF_CAP or level == _BITS
        nodei[nd, 0], nodei[nd, 1], nodei[nd, 2] = lo, hi, level
        nodei[nd, 3], nodei[nd, 4], nodei[nd, 5] = parent, 0, 1 if leaf else 0
        half = st_f[sp, 3]
        nodef[nd, 0] = st_f[sp, 0]
        nodef[nd, 1] = st_f[sp, 1]
        nodef[nd, 2] = st_f[sp, 2]
        nodef[nd, 3] = half
        nodef[nd, 4] = nodef[nd, 5] = nodef[nd, 6] = 0.0  # centre of mass: summed below
        nodef[nd, 7] = (2.0 * half / theta) ** 2
        if leaf:
            continue
        cx, cy, cz = st_f[sp, 0], st_f[sp, 1], st_f[sp, 2]
        shift = (_BITS - 1 - level) * dim
        # children in reverse order, so child 0 is popped (emitted) first
        end = hi
        for q in range(nch - 1, -1, -1):
            a, b = lo, end  # first body of child q: keys' digit at this level >= q
            while a < b:
                mid = (a + b) >> 1
                if (skeys[mid] >> shift) & (nch - 1) < q:
                    a = mid + 1
                else:
                    b = mid
            if a < end:
                st_i[sp, 0], st_i[sp, 1], st_i[sp, 2], st_i[sp, 3] = a, end, level + 1, nd
                h = 0.5 * half
                st_f[sp, 0] = cx + (h if q & 1 else -h)
                st_f[sp, 1] = cy + (h if q & 2 else -h)
                st_f[sp, 2] = cz + ((h if q & 4 else -h) if dim == 3 else 0.0)
                st_f[sp, 3] = h
                sp += 1
            end = a
    # bottom-up (reverse preorder): centres of mass and subtree sizes -> skip pointers
    size = np.ones(nn, np.int64)
    for nd in range(nn - 1, -1, -1):
        lo, hi = nodei[nd, 0], nodei[nd, 1]
        if nodei[nd, 5]:
            for j in range(lo, hi):
                nodef[nd, 4] += bp[j, 0]
                nodef[nd, 5] += bp[j, 1]
                nodef[nd, 6] += bp[j, 2]
        nodei[nd, 4] = nd + size[nd]
        par = nodei[nd, 3]
        if par >= 0:
            size[par] += size[nd]
            nodef[par, 4] += nodef[nd, 4]
            nodef[par, 5] += nodef[nd, 5]
            nodef[par, 6] += nodef[nd, 6]
        cnt = hi - lo
        nodef[nd, 4] /= cnt
        nodef[nd, 5] /= cnt
        nodef[nd, 6] /= cnt
    return nodei, nodef, nn, order, bp


@njit(inline="always", **NUMBA_FLAGS)
def _far_terms(gx, gy, gz, sx, sy, sz, gn, cx, cy, cz, km):
    """Adds a far node's repulsion (centre of mass c, k^2 * count km) to each vertex's
    sums: one accumulator per vertex, so the loop vectorises with no sum reordered."""
    for r in range(gn):
        dx = gx[r] - cx
        dy = gy[r] - cy
        dz = gz[r] - cz
        f = km / (dx * dx + dy * dy + dz * dz)
        sx[r] += dx * f
        sy[r] += dy * f
        sz[r] += dz * f


@njit(inline="always", **NUMBA_FLAGS)
def _near_terms(gx, gy, gz, sx, sy, sz, ties, gn, cx, cy, cz, k2, lim):
    """Adds one near vertex's repulsion k^2/d to each vertex's sums, unless it is closer
    than sqrt(lim) (the vertex itself or a coincident one: counted in ``ties``)."""
    for r in range(gn):
        dx = gx[r] - cx
        dy = gy[r] - cy
        dz = gz[r] - cz
        d2 = dx * dx + dy * dy + dz * dz
        tie = d2 <= lim
        f = 0.0 if tie else k2 / max(d2, lim)
        sx[r] += dx * f
        sy[r] += dy * f
        sz[r] += dz * f
        ties[r] += 1.0 if tie else 0.0


@njit(**NUMBA_FLAGS)
def _repel_bh(a, b, k2, dim, nodei, nodef, nn, order, bp, group, disp):
    """Barnes-Hut repulsion on the vertices at Morton positions a..b-1 (``disp[j - a]``),
    one tree walk per group (the largest subtrees of <= ``group`` vertices) instead of
    one per vertex. A node is summarised by its centre of mass when it is not an ancestor
    of the group and (width / theta)^2 < the squared distance from its centre of mass to
    the group's bounding box (so to every vertex of the group: at least as exact as the
    per-vertex test); otherwise it is opened, and a leaf that cannot be summarised is
    summed pair by pair. Every vertex of a group sums the same two lists in a fixed order,
    far nodes then near vertices; the lists depend only on the tree, which every peer
    builds alike, so the sums do not depend on the peers. The inner loops run over the
    group's vertices with one accumulator each (no loop-carried dependency: the compiler
    vectorises them without reordering any sum)."""
    far = np.empty((4, 256), np.float64)  # accepted nodes: centre of mass, k^2 * count
    near = np.empty((3, 1024), np.float64)  # positions of the near vertices
    nearj = np.empty(1024, np.int64)  # ... and their Morton positions
    # the group's vertices in a..b: positions, sums, coincident count (separate arrays:
    # the compiler then vectorises the loops over them)
    m = group + _LANES
    gx, gy, gz = np.empty(m), np.empty(m), np.empty(m)
    sx, sy, sz, ties = np.empty(m), np.empty(m), np.empty(m), np.empty(m)
    lim = _TINY * _TINY * k2  # closer than this: coincident (an axis push, below)
    g = 0
    while g < nn:
        glo, ghi, gnext = nodei[g, 0], nodei[g, 1], nodei[g, 4]
        if ghi <= a or glo >= b:
            g = gnext  # no vertex of ours below
            continue
        if ghi - glo > group and not nodei[g, 5]:
            g += 1  # too big a group: go down
            continue
        ja, jb = max(glo, a), min(ghi, b)
        gn = jb - ja
        # padded to whole vector lanes with copies of the last vertex (their sums are
        # dropped): the vectorised loops then need no scalar remainder
        gw = (gn + _LANES - 1) // _LANES * _LANES
        for r in range(gw):
            t = ja + min(r, gn - 1)
            gx[r], gy[r], gz[r] = bp[t, 0], bp[t, 1], bp[t, 2]
            sx[r] = sy[r] = sz[r] = ties[r] = 0.0
        # the group's bounding box (all its vertices: the same lists on every peer)
        x0 = x1 = bp[glo, 0]
        y0 = y1 = bp[glo, 1]
        z0 = z1 = bp[glo, 2]
        for t in range(glo + 1, ghi):
            x0, x1 = min(x0, bp[t, 0]), max(x1, bp[t, 0])
            y0, y1 = min(y0, bp[t, 1]), max(y1, bp[t, 1])
            z0, z1 = min(z0, bp[t, 2]), max(z1, bp[t, 2])
        nf = 0
        nb = 0
        nd = 0
        while nd < nn:
            skip = nodei[nd, 4]
            if nd <= g < skip and nd != g:  # an ancestor of the group: open it
                nd += 1
                continue
            cx, cy, cz = nodef[nd, 4], nodef[nd, 5], nodef[nd, 6]
            ex = max(x0 - cx, 0.0, cx - x1)
            ey = max(y0 - cy, 0.0, cy - y1)
            ez = max(z0 - cz, 0.0, cz - z1)
            if nd != g and ex * ex + ey * ey + ez * ez > nodef[nd, 7]:
                if nf == far.shape[1]:
                    far = _grow_cols(far, 2 * nf)
                far[0, nf], far[1, nf], far[2, nf] = cx, cy, cz
                far[3, nf] = k2 * (nodei[nd, 1] - nodei[nd, 0])
                nf += 1
                nd = skip
            elif nd == g or nodei[nd, 5]:  # the group itself, or a near leaf: pairs
                for t in range(nodei[nd, 0], nodei[nd, 1]):
                    if nb == nearj.shape[0]:
                        near = _grow_cols(near, 2 * nb)
                        nearj = _grow1(nearj, 2 * nb)
                    near[0, nb], near[1, nb], near[2, nb] = bp[t, 0], bp[t, 1], bp[t, 2]
                    nearj[nb] = t
                    nb += 1
                nd = skip
            else:
                nd += 1
        for i in range(nf):
            cx, cy, cz, km = far[0, i], far[1, i], far[2, i], far[3, i]
            _far_terms(gx, gy, gz, sx, sy, sz, gw, cx, cy, cz, km)
        for i in range(nb):
            cx, cy, cz = near[0, i], near[1, i], near[2, i]
            _near_terms(gx, gy, gz, sx, sy, sz, ties, gw, cx, cy, cz, k2, lim)
        for r in range(gn):
            j = ja + r
            u = order[j]
            if ties[r] > 1.0:  # coincident with another vertex: the axis pushes
                for i in range(nb):
                    t = nearj[i]
                    dx = gx[r] - near[0, i]
                    dy = gy[r] - near[1, i]
                    dz = gz[r] - near[2, i]
                    if t != j and dx * dx + dy * dy + dz * dz <= lim:
                        ax, ay, az = _rep(dx, dy, dz, u, order[t], k2, dim)
                        sx[r] += ax
                        sy[r] += ay
                        sz[r] += az
            disp[j - a, 0] += sx[r]
            disp[j - a, 1] += sy[r]
            disp[j - a, 2] += sz[r]
        g = gnext


@njit(**NUMBA_FLAGS)
def _fr_step_bh(pos, pid, peers, indptr, indices, weights, has_w, k, theta, group, gravity,
                temp):  # fmt: skip
    """One Barnes-Hut FR iteration for peer ``pid`` of ``peers``: it owns the vertices at
    Morton positions [pid * n // peers, (pid + 1) * n // peers) of this iteration's tree
    (contiguous in space: its groups' walks are not shared with other peers). Returns
    (Morton order of all vertices, new positions of the owned ones)."""
    n, dim = pos.shape
    p = _as3(pos)
    nodei, nodef, nn, order, bp = _bh_build(p, dim, theta)
    a, b = pid * n // peers, (pid + 1) * n // peers
    disp = np.zeros((b - a, 3), np.float64)
    _repel_bh(a, b, k * k, dim, nodei, nodef, nn, order, bp, group, disp)
    # attraction over the owned vertices in id order (the CSR rows in order), each
    # added to its Morton slot
    slot = np.full(n, -1, np.int64)
    for j in range(a, b):
        slot[order[j]] = j - a
    ids = np.empty(b - a, np.int64)
    c = 0
    for u in range(n):
        if slot[u] >= 0:
            ids[c] = u
            c += 1
    _attract(p, ids, slot[ids], indptr, indices, weights, has_w, k, disp)
    return order, _move(pos, order[a:b], disp, gravity, temp)
