"""Force-directed layout (Fruchterman and Reingold, "Graph drawing by force-directed
placement", Software: Practice and Experience 21(11), 1991). Given a graph, returns a
position for every vertex in 2-D or 3-D (columns ``x``, ``y`` and ``z``), float64.

Definitions. The frame is the unit square (unit cube in 3-D), so the area is normalised
to 1 and the natural edge length is ``k = (1 / n) ** (1 / dim)`` unless given. Edges are
read undirected (a directed graph is symmetrised: an edge present in both directions
counts twice, like a multi-edge). Every iteration, synchronously (all vertices move from
the same previous positions):

- attraction along each edge: ``w * d**2 / k`` towards the neighbour, ``w`` the edge
  weight (1 when unweighted; weights multiply the force and must be finite and >= 0);
  multi-edges count with their multiplicity, self-loops exert no force (d = 0);
- repulsion between every pair: ``k**2 / d`` away from the other vertex. ``exact`` sums
  all pairs, O(n^2); ``grid`` is the paper's grid variant: cells of side >= 2k over the
  frame, repulsion only from vertices in the 3^dim neighbouring cells closer than 2k
  (the paper's ``u(2k - d)`` cut-off); ``barnes-hut`` uses a quadtree (octree in 3-D)
  and replaces a cell of width s by its centre of mass when ``s / d < theta``, d the
  distance from that centre to the bounding box of the vertex's group (the largest
  subtree of at most ``GROUP`` vertices holding it; one tree walk serves the group) and
  the cell not holding the vertex. ``auto`` is exact up to ``EXACT_MAX`` vertices,
  Barnes-Hut above;
- gravity ``gravity * n**(1 - 2/dim) * r``, a linear pull towards the frame's centre
  (``r`` the offset from it): it keeps disconnected components and isolated vertices,
  which all-pairs repulsion pushes apart for ever, near the frame; the ``n`` factor
  balances the repulsion's sum so layouts are about frame-sized in 2-D and 3-D. Default
  1, and 0 for ``grid``, whose repulsion is short-range;
- a vertex moves along its net force by at most the temperature ``t``; ``t`` starts at a
  tenth of the frame's width and cools linearly to ``t0 / iterations`` in the last
  iteration (as NetworkX's ``spring_layout``);
- positions are clipped to ``[BOX_LO, BOX_HI]^dim`` (the frame plus a frame's width on
  each side: the paper's walls, far enough that gravity-bound layouts rarely touch them).
  Two vertices at the same point push each other apart along a coordinate axis picked
  from their ids (a deterministic tie-break).

Initial positions are ``numpy.random.default_rng(seed).random((n, dim))`` (uniform in the
frame) unless ``initial`` is given. Results are deterministic for a seed and are *bitwise
identical for any number of threads or MPI ranks*: a vertex's displacement is a sum, in
a fixed order, over structures (grid, tree) that every peer builds from the same full
position array; no sum crosses peers.

Why the peer-level API, not a vertex program: repulsion acts between every pair of
vertices, not along edges, so a vertex needs every position (or a spatial index over
them), which the vertex model's per-edge messages cannot give without n^2 messages. Here
each peer owns a set of vertices, computes their moves in one nogil numba call per
iteration, and sends its new positions to every other peer (by reference on the local
runtime, one ``alltoall`` on MPI); every peer then holds the full position array for
the next iteration and builds its own copy of the grid or tree (O(n), a fraction of the
walk it serves). For exact and grid a peer owns a vertex range (balanced by per-vertex
repulsion cost plus degree); for Barnes-Hut, a range of this iteration's Morton order
(the same on every peer), so a peer's groups are its own and their walks are not
repeated by another peer.

Quality measures (:func:`layout_quality`): edge-length spread (coefficient of variation),
the neighbour ratio (mean edge length / mean distance between random pairs) and, on small
graphs, the normalised stress against hop distances.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from hpgraph.algorithms._common import check_graph, check_weights
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.bsp import run_bsp
from hpgraph.errors import InvalidArgumentError
from hpgraph.graph.partition import range_partition
from hpgraph.result import VertexResult

__all__ = ["layout", "layout_quality", "plot_layout", "EXACT_MAX"]

#: ``method="auto"`` sums all pairs up to this many vertices, uses Barnes-Hut above.
EXACT_MAX = 2048
#: Starting temperature as a fraction of the frame's width.
T0 = 0.1
#: Barnes-Hut: bodies a leaf holds before it splits, and the depth where splitting stops
#: (a cell of width 2^-40 frames: only coincident points get that deep).
LEAF_CAP = 32
#: Barnes-Hut: vertices per group (the largest subtrees of at most this many share one
#: tree walk; larger groups walk less but sum more terms, which are vectorised).
GROUP = 128
MAX_DEPTH = 40
#: Positions are clipped to [BOX_LO, BOX_HI]^dim: the frame plus a frame's width on every
#: side. Gravity keeps layouts about frame-sized, so the walls rarely bite; they bound the
#: tree and the grid and guarantee that nothing leaves.
BOX_LO = -1.0
BOX_HI = 2.0
#: Pairs closer than this (times k) are treated as coincident: deterministic axis push.
_TINY = 1e-9

_METHODS = {"exact": 0, "grid": 1, "barnes-hut": 2}
# per-vertex repulsion cost in edge visits, to balance the peers' ranges
_ALPHA = {"grid": 40.0, "barnes-hut": 150.0}
_COLS = ("x", "y", "z")


# ---------------------------------------------------------------------------------------
# compiled kernels: arrays and scalars only. Positions are handled as (n, 3) arrays, z = 0
# in 2-D, so the inner loops carry three scalars instead of a loop over the dimension;
# `dim` only picks the tree's fan-out, the grid's neighbourhood and the coincident axes.


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
        disp[u - lo, 0] += fx
        disp[u - lo, 1] += fy
        disp[u - lo, 2] += fz


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
        disp[u - lo, 0] += fx
        disp[u - lo, 1] += fy
        disp[u - lo, 2] += fz


# Barnes-Hut tree, built top-down over bodies sorted by Morton key, stored in preorder so
# the walk needs no stack: open a node -> go to nd + 1 (its first child), accept it or
# finish a leaf -> jump to skip[nd] (past its subtree). Per node: nodei = [first body,
# end body, level, parent, skip, leaf?]; nodef = [cx, cy, cz, half width, com x, y, z,
# (width / theta)^2]. A node's bodies are the contiguous range of the sorted arrays.

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
        r = rows[i]
        disp[r, 0] += fx
        disp[r, 1] += fy
        disp[r, 2] += fz


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


# ---------------------------------------------------------------------------------------
# the peer program (runs unchanged on every runtime)


def _fr_peer(peer, g, pos0, method, k, theta, gravity, temps, alpha, progress):
    n, P = g.n, peer.num_peers
    offsets = range_partition(g, P, alpha=alpha).offsets
    lo, hi = int(offsets[peer.pid]), int(offsets[peer.pid + 1])
    w = g.weights if g.weights is not None else np.zeros(0, np.float64)
    # grid cells at least 2k wide, and no more cells than a few per vertex
    cap = int((4 * g.n + 64) ** (1.0 / pos0.shape[1]))
    ncell = max(1, min(int((BOX_HI - BOX_LO) / (2.0 * k)), cap))
    pos = pos0.copy()  # this peer's copy of every position
    show = _Progress(len(temps)) if progress and peer.pid == 0 else None
    try:
        for it, t in enumerate(temps):
            if method == 2:  # Barnes-Hut: this iteration's owners follow the tree
                order, new = _fr_step_bh(
                    pos, peer.pid, P, g.indptr, g.indices, w, g.weights is not None,
                    k, theta, GROUP, gravity, t,
                )  # fmt: skip
                mine = order[peer.pid * n // P : (peer.pid + 1) * n // P]
            else:
                new = _fr_step(
                    pos, lo, hi, g.indptr, g.indices, w, g.weights is not None,
                    k, method, ncell, gravity, t,
                )  # fmt: skip
            for q in range(P):
                if q != peer.pid:
                    peer.send(q, new)  # a fresh array each iteration: safe by reference
            peer.sync()
            if method == 2:
                pos[mine] = new
                for src, block in peer.messages():
                    pos[order[src * n // P : (src + 1) * n // P]] = block
            else:
                pos[lo:hi] = new
                for src, block in peer.messages():
                    pos[offsets[src] : offsets[src + 1]] = block
            if show is not None:
                show.update(it + 1)
    finally:
        if show is not None:
            show.close()
    return pos[lo:hi].copy()


class _Progress:
    """The iterations of peer 0, through :class:`hpgraph.progress.Counter`."""

    def __init__(self, total):
        from hpgraph.progress import Counter

        self._c = Counter("layout", total, "iterations")

    def update(self, done):
        self._c.set(done)

    def close(self):
        self._c.close()


def _whole(name, value, lo):
    if isinstance(value, bool) or int(value) != value or value < lo:
        raise InvalidArgumentError(f"{name} must be a whole number >= {lo}, got {value!r}")
    return int(value)


def layout(
    graph,
    *,
    dim=2,
    iterations=100,
    seed=0,
    method="auto",
    k=None,
    theta=0.8,
    gravity=None,
    initial=None,
    threads=None,
    runtime=None,
    progress=False,
):
    """Fruchterman-Reingold positions of every vertex around the unit square (``dim=2``)
    or cube (``dim=3``), inside ``[BOX_LO, BOX_HI]^dim``: a :class:`VertexResult` with
    float64 columns ``x``, ``y`` (``z``). Definitions: the module docstring.

    ``method``: ``"exact"`` (all pairs), ``"grid"`` (FR's grid variant, repulsion within
    2k), ``"barnes-hut"`` (``theta``: opening angle, 0.5..1; smaller is more exact) or
    ``"auto"`` (exact up to :data:`EXACT_MAX` vertices). ``k``: natural edge length in
    frame units (default ``(1/n)**(1/dim)``). ``initial``: an ``(n, dim)`` array of
    starting positions inside the box (default: uniform random in the frame from
    ``seed``). ``gravity``: pull to the centre (default 1, 0 for ``grid``).
    """
    check_graph(graph)
    dim = _whole("dim", dim, 2)
    if dim > 3:
        raise InvalidArgumentError(f"dim must be 2 or 3, got {dim}")
    iterations = _whole("iterations", iterations, 0)
    seed = _whole("seed", seed, 0)
    if method not in ("auto", *_METHODS):
        raise InvalidArgumentError(
            f"method must be one of auto, {', '.join(_METHODS)}; got {method!r}"
        )
    if not (isinstance(theta, int | float) and 0.0 < theta <= 2.0):
        raise InvalidArgumentError(f"theta must lie in (0, 2], got {theta!r}")
    n = graph.n
    if k is None:
        k = (1.0 / max(n, 1)) ** (1.0 / dim)
    elif not (isinstance(k, int | float) and math.isfinite(k) and k > 0):
        raise InvalidArgumentError(f"k must be a finite number > 0, got {k!r}")
    k = float(k)
    if initial is None:
        pos0 = np.random.default_rng(seed).random((n, dim))
    else:
        pos0 = np.array(initial, dtype=np.float64, order="C")  # a copy: never the caller's
        if pos0.shape != (n, dim):
            raise InvalidArgumentError(
                f"initial must have shape ({n}, {dim}) (vertices, dim), got {pos0.shape}"
            )
        bad = ~np.isfinite(pos0) | (pos0 < BOX_LO) | (pos0 > BOX_HI)
        if bad.any():
            v = int(np.flatnonzero(bad.any(axis=1))[0])
            raise InvalidArgumentError(
                f"initial positions must lie in [{BOX_LO:g}, {BOX_HI:g}]^{dim}; vertex "
                f"{graph.user_ids()[v]!r} is at {pos0[v].tolist()}"
            )
    g = graph.symmetrized()
    check_weights(g, "layout")
    if method == "auto":
        method = "exact" if n <= EXACT_MAX else "barnes-hut"
    if gravity is None:
        gravity = 0.0 if method == "grid" else 1.0
    if not (isinstance(gravity, int | float) and math.isfinite(gravity) and gravity >= 0):
        raise InvalidArgumentError(f"gravity must be a finite number >= 0, got {gravity!r}")
    grav = float(gravity) * max(n, 1) ** (1.0 - 2.0 / dim)
    temps = T0 * (1.0 - np.arange(iterations) / max(iterations, 1))
    alpha = float(max(n, 1)) if method == "exact" else _ALPHA[method]
    res = run_bsp(
        _fr_peer,
        peers=threads,
        args=(g, pos0, _METHODS[method], k, float(theta), grav, temps, alpha, progress),
        runtime=runtime,
    )
    pos = np.concatenate([pos0[:0], *res.results]) if n else pos0
    return VertexResult(
        algorithm="layout",
        graph=graph,
        columns={_COLS[a]: np.ascontiguousarray(pos[:, a]) for a in range(dim)},
        stats=res.stats,
        meta={
            "dim": dim,
            "iterations": iterations,
            "method": method,
            "k": k,
            "theta": float(theta) if method == "barnes-hut" else None,
            "seed": seed,
            "peers": len(res.results),
        },
    )


# ---------------------------------------------------------------------------------------
# quality measures


def _positions(graph, pos):
    if isinstance(pos, VertexResult):
        cols = [c for c in _COLS if c in pos.columns]
        return np.column_stack([pos[c] for c in cols]).astype(np.float64)
    if isinstance(pos, dict):  # {user id: coordinates}, e.g. networkx.spring_layout
        return np.array([pos[i] for i in graph.user_ids().tolist()], dtype=np.float64)
    arr = np.asarray(pos, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[0] != graph.n:
        raise InvalidArgumentError(f"positions must have shape ({graph.n}, dim), got {arr.shape}")
    return arr


def layout_quality(graph, positions, *, pairs=200_000, seed=0, stress_max=2000):
    """Quality of a layout (a :func:`layout` result, an ``(n, dim)`` array, or a
    ``{vertex: coordinates}`` dict), on the undirected simple view of the graph (each
    vertex pair joined by an edge counted once, self-loops dropped):

    - ``edge_length_cv``: standard deviation / mean of the edge lengths (0: all equal);
    - ``neighbour_ratio``: mean edge length / mean distance between two distinct
      vertices (all pairs up to ``stress_max`` vertices, else ``pairs`` random pairs from
      ``default_rng(seed)``); well below 1 when neighbours are drawn close;
    - ``stress`` (graphs up to ``stress_max`` vertices, else ``None``): normalised stress
      ``mean (s*|x_i - x_j| - d_ij)^2 / d_ij^2`` over connected pairs, d_ij the hop
      distance, s the scale that minimises it (so the measure ignores the drawing's size).
    Measures that need an edge or a pair are ``nan`` when there is none.
    """
    check_graph(graph)
    x = _positions(graph, positions)
    n = graph.n
    src, dst, _ = graph.symmetrized().edges()
    keep = src < dst
    e = np.unique(np.stack([src[keep], dst[keep]]).astype(np.int64), axis=1)
    out = {"edge_length_cv": math.nan, "neighbour_ratio": math.nan, "stress": None}
    if e.shape[1]:
        lengths = np.linalg.norm(x[e[0]] - x[e[1]], axis=1)
        mean_len = float(lengths.mean())
        if mean_len > 0:
            out["edge_length_cv"] = float(lengths.std() / mean_len)
    if n < 2:
        return out
    if n <= stress_max:
        from scipy.spatial.distance import pdist

        pd = pdist(x)
    else:
        rng = np.random.default_rng(seed)
        a = rng.integers(0, n, pairs)
        b = (a + rng.integers(1, n, pairs)) % n  # b != a
        pd = np.linalg.norm(x[a] - x[b], axis=1)
    if e.shape[1] and pd.mean() > 0:
        out["neighbour_ratio"] = mean_len / float(pd.mean())
    if n <= stress_max:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import shortest_path
        from scipy.spatial.distance import squareform

        adj = csr_matrix((np.ones(e.shape[1]), (e[0], e[1])), shape=(n, n))
        hops = shortest_path(adj, directed=False, unweighted=True)
        iu = np.triu_indices(n, 1)
        d = hops[iu]
        dx = squareform(pd)[iu]
        ok = np.isfinite(d)
        if ok.any():
            d, dx = d[ok], dx[ok]
            den = float(np.sum(dx * dx / (d * d)))
            s = float(np.sum(dx / d)) / den if den > 0 else 1.0
            out["stress"] = float(np.mean((s * dx - d) ** 2 / (d * d)))
    return out


def plot_layout(result, path, *, communities=None, edges=True, size=6.0):
    """Draw a :func:`layout` result to ``path`` (PNG or any format matplotlib writes):
    vertices coloured by ``communities`` (one integer label per vertex) when given, edges
    as thin lines (skipped above 200,000 edges). 3-D results get a 3-D axes. Needs
    matplotlib; raises :class:`InvalidArgumentError` naming it when it is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection
    except ImportError as exc:
        raise InvalidArgumentError("plot_layout needs matplotlib: pip install matplotlib") from exc
    x = _positions(result.graph, result)
    dim = x.shape[1]
    colour = None
    if communities is not None:
        colour = np.asarray(communities)
        if colour.shape != (x.shape[0],):
            raise InvalidArgumentError(
                f"communities must hold one label per vertex ({x.shape[0]}), got shape "
                f"{colour.shape}"
            )
    fig = plt.figure(figsize=(size, size))
    ax = fig.add_subplot(projection="3d" if dim == 3 else None)
    src, dst, _ = result.graph.symmetrized().edges()
    keep = src < dst
    if edges and 0 < keep.sum() <= 200_000:
        seg = np.stack([x[src[keep]], x[dst[keep]]], axis=1)
        if dim == 2:
            ax.add_collection(LineCollection(seg, linewidths=0.3, colors="0.6", zorder=1))
        else:
            from mpl_toolkits.mplot3d.art3d import Line3DCollection

            ax.add_collection(Line3DCollection(seg, linewidths=0.3, colors="0.6"))
    paint = {} if colour is None else {"c": colour, "cmap": "tab20"}
    ax.scatter(*x.T, s=max(1.0, 2000.0 / max(x.shape[0], 1) ** 0.5), zorder=2, **paint)
    lo, hi = x.min(axis=0) if x.size else np.zeros(dim), x.max(axis=0) if x.size else np.ones(dim)
    pad = 0.02 * max(float((hi - lo).max()), 1e-9)
    ax.set_xlim(lo[0] - pad, hi[0] + pad)
    ax.set_ylim(lo[1] - pad, hi[1] + pad)
    if dim == 3:
        ax.set_zlim(lo[2] - pad, hi[2] + pad)
    else:
        ax.set_aspect("equal")
    ax.set_axis_off()
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)
