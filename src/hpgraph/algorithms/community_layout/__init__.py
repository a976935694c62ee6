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

The package: :mod:`.inputs` (the cover and leaders, checked), :mod:`.groups` (the
community graph and its forest), :mod:`.coarse` (step 3), :mod:`.placement` (step 4) and
:mod:`.refine` (step 5); this module holds the front end, which runs the steps in turn.
"""

from __future__ import annotations

import math
import time

import numpy as np

from hpgraph.algorithms._common import check_graph
from hpgraph.algorithms.community_layout.coarse import SEPARATION_SWEEPS, _coarse_peer, _separate
from hpgraph.algorithms.community_layout.groups import (
    _attach,
    _best_links,
    _cross_keys,
    _symmetric_csr,
    _topological,
)
from hpgraph.algorithms.community_layout.inputs import _communities, _leader_pairs, _number
from hpgraph.algorithms.community_layout.placement import (
    _frame,
    _leaders_to_centroids,
    _place_forest,
    _place_members,
    _preferences,
    _subtree,
    _sunflower,
    _vertex_forest,
)
from hpgraph.algorithms.community_layout.refine import _cell_sums, _permuted_csr, _refine_peer
from hpgraph.algorithms.layout import T0, _dimension, _whole
from hpgraph.engine.bsp import run_bsp
from hpgraph.graph.views import simple_view
from hpgraph.result import VertexResult

__all__ = ["community_layout"]


_COLS = ("x", "y", "z")


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
    dim = _dimension(dim)
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
