"""Community leaders: the users of highest betweenness inside each community.

Given a graph and a cover (communities that may overlap, e.g. BMLPA's), returns for every
community with at least ``min_size`` members its ``leaders`` vertices of highest
betweenness centrality *on the community's induced subgraph*, the seed paper's "leaders"
stage. The subgraph is the undirected simple view (directions ignored, repeated
mentions collapsed, self-loops dropped; :func:`hpgraph.graph.views.simple_view`)
restricted to the members. Values are NetworkX's ``betweenness_centrality(G.subgraph(
members))``: normalised (by ``(s-1)(s-2)`` for s members), endpoints excluded, and for
communities above ``exact_max`` members Brandes from ``samples`` sources drawn from
``seed`` with NetworkX 3.6's k-sample scaling (:func:`hpgraph.algorithms.betweenness.
_rescale`). Ranks: betweenness descending, ties to the smaller internal vertex id.

All communities run as one batch, with no Python call per community (a mention graph at
8M users has millions of communities):

1. One compiled pass builds the **block-diagonal** CSR of every eligible community's
   induced subgraph. A (vertex, community) membership is one block vertex, so a vertex
   in three communities appears in three blocks. Memory: 8 B per block vertex (pointer)
   plus 8 B per induced directed edge while built (4 B once narrowed to int32), and
   12 B per membership for the lookups.
2. The blocks' **leaves** (degree 1, their neighbour of degree 2 or more: most of a
   mention community, users mentioned once) are taken out (:func:`_without_leaves`);
   no shortest path crosses one, so each counts as 1 in its neighbour's dependency, and
   a search from a leaf is its neighbour's, one hop longer (the degree-1 reduction of
   Baglioni et al. 2012 and Sariyuce et al. 2013; exact, as NetworkX's values are).
   Brandes (:func:`hpgraph.algorithms.betweenness._brandes_bfs`) then runs from every
   source or its neighbour on the block-diagonal graph left; a search from a source
   inside a block never leaves it, so one graph serves all communities. The searches
   are cut into one contiguous range per peer (``run_bsp``), balanced by their block's
   size plus edges (the cost of one search), and the peers' partial sums are added.
   On the 2M-user mention graph's cover: half the searches and half the time.
3. Rescaling is vectorised over the blocks; the top ``leaders`` of each block come from
   one compiled pass (:func:`_top`).

Per peer: 24 B per block vertex (distance, sigma, dependency, stack) plus 8 B for its
partial sums; shared: 24 B per block vertex for the leaf counts and searches per source,
8 B for a leaf's neighbour.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from hpgraph.algorithms._common import check_graph
from hpgraph.algorithms._peer import PeerProgress, resolve_runtime
from hpgraph.algorithms.betweenness import NETWORKX_VERSION, _brandes_bfs
from hpgraph.algorithms.bmlpa.postprocess import _in_ranges, _members
from hpgraph.config import NUMBA_FLAGS
from hpgraph.engine.bsp import run_bsp
from hpgraph.errors import InvalidArgumentError

__all__ = ["community_leaders", "LeadersResult", "EXACT_MAX", "SAMPLES"]

#: Communities up to this many members get exact betweenness (every member a source).
EXACT_MAX = 200
#: Sources per community above EXACT_MAX.
SAMPLES = 64


@dataclass
class LeadersResult:
    """Leaders as aligned arrays, one row per (community, rank): ``community`` (the
    cover's id), ``rank`` (1 = highest betweenness), ``vertex`` (internal id),
    ``betweenness``. Per eligible community (``communities``, ascending): ``exact`` and
    ``sources`` (how many searches its values rest on)."""

    graph: object
    community: np.ndarray
    rank: np.ndarray
    vertex: np.ndarray
    betweenness: np.ndarray
    communities: np.ndarray
    exact: np.ndarray
    sources: np.ndarray
    meta: dict = field(default_factory=dict)

    def to_rows(self) -> dict[str, np.ndarray]:
        """``community``, ``rank``, ``vertex`` (the input's ids), ``betweenness``."""
        return {
            "community": self.community,
            "rank": self.rank,
            "vertex": self.graph.user_ids()[self.vertex],
            "betweenness": self.betweenness,
        }


# ------------------------------------------------------------------ the induced blocks
@njit(**NUMBA_FLAGS)
def _blocks(indptr, indices, mptr, mvert, loc):
    """Block-diagonal CSR of the induced subgraphs: community k's members are
    ``mvert[mptr[k]:mptr[k+1]]`` and become block vertices ``mptr[k]..mptr[k+1]-1``.
    ``loc`` (one int64 per vertex, -1 on entry and on return) maps a member to its block
    vertex while its community is built. Returns (bptr int64, bidx) of the blocks of
    ``mptr``, which may be a slice: rows from block vertex ``mptr[0]`` on. One pass over the
    members' adjacency, ``bidx`` grown by doubling (a count pass first cost as much
    again: a hub in several communities scans its whole adjacency in each)."""
    base = mptr[0]
    total = mptr[-1] - base
    bptr = np.zeros(total + 1, dtype=np.int64)
    bidx = np.empty(max(16, 2 * total), dtype=np.int64)
    w = 0
    for k in range(mptr.shape[0] - 1):
        for i in range(mptr[k], mptr[k + 1]):
            loc[mvert[i]] = i
        for i in range(mptr[k], mptr[k + 1]):
            v = mvert[i]
            for e in range(indptr[v], indptr[v + 1]):
                j = loc[indices[e]]
                if j >= 0:
                    if w == bidx.shape[0]:
                        grown = np.empty(2 * w, dtype=np.int64)
                        grown[:w] = bidx
                        bidx = grown
                    bidx[w] = j
                    w += 1
            bptr[i - base + 1] = w
        for i in range(mptr[k], mptr[k + 1]):
            loc[mvert[i]] = -1
    return bptr, bidx[:w].copy()


def _all_blocks(indptr, indices, mptr, mvert, threads):
    """:func:`_blocks` of every community, in ranges of communities of equal work on
    ``threads`` threads (each with its own ``loc``), joined."""
    scratch = threading.local()

    def blocks(k0, k1):
        if not hasattr(scratch, "loc"):
            scratch.loc = np.full(indptr.shape[0] - 1, -1, dtype=np.int64)
        return _blocks(indptr, indices, mptr[k0 : k1 + 1], mvert, scratch.loc)

    parts = _in_ranges(max(threads or 1, 1), mptr, blocks)
    bptr = np.zeros(mptr[-1] + 1, dtype=np.int64)
    row = at = 0  # the ranges come in order: rows and entries follow on
    for pp, pi in parts:
        bptr[row + 1 : row + pp.shape[0]] = pp[1:] + at
        row += pp.shape[0] - 1
        at += pi.shape[0]
    return bptr, np.concatenate([pi for _, pi in parts])


def _leaders_peer(peer, bptr, bidx, sources, cost, leaves, progress):
    """Brandes from this peer's range of ``sources`` (balanced by ``cost``; ``leaves``:
    the leaves each source stands for, see :func:`_searches`); returns its partial
    sums over every block vertex."""
    n = bptr.shape[0] - 1
    cum = np.cumsum(cost)
    total = float(cum[-1]) if cum.size else 0.0
    p, q = peer.pid, peer.num_peers
    lo = int(np.searchsorted(cum, total * p / q, side="right")) if p else 0
    hi = int(np.searchsorted(cum, total * (p + 1) / q, side="right")) if p < q - 1 else len(cost)
    mine = sources[lo:hi]
    dist = np.full(n, -1, dtype=np.int32)
    sigma = np.empty(n, dtype=np.float64)
    coef = np.empty(n, dtype=np.float64)
    stack = np.empty(n, dtype=bidx.dtype)
    bc = np.zeros(n, dtype=np.float64)
    ebc = np.zeros(0, dtype=np.float64)
    bar = PeerProgress(len(mine), q) if progress is True and p == 0 else None
    step = max(1, -(-len(mine) // 100))  # ~100 calls: progress, no per-source Python
    try:
        for a in range(0, len(mine), step):
            chunk = mine[a : a + step]
            _brandes_bfs(bptr, bidx, chunk, False, dist, sigma, coef, stack, bc, ebc, leaves)
            if bar is not None:
                bar.advance(len(chunk))
            elif callable(getattr(progress, "update", None)) and p == 0:
                progress.update(f"{min(a + step, len(mine)):,} of {len(mine):,} searches on peer 0")
    finally:
        if bar is not None:
            bar.close()
    return bc


@njit(**NUMBA_FLAGS)
def _without_leaves(bptr, bidx):
    """The block graph without its leaves (degree 1, their neighbour degree 2 or more),
    for :func:`~hpgraph.algorithms.betweenness._brandes_bfs`'s degree-1 reduction: a
    mention community is mostly users mentioned once, whom no shortest path crosses.
    Returns (pptr, pidx: the graph left, leaves isolated; hang: leaves per vertex,
    float64; hub: a leaf's neighbour, -1 for the others)."""
    n = bptr.shape[0] - 1
    hub = np.full(n, -1, dtype=np.int64)
    hang = np.zeros(n, dtype=np.float64)
    for x in range(n):
        if bptr[x + 1] - bptr[x] == 1:
            h = bidx[bptr[x]]
            if bptr[h + 1] - bptr[h] >= 2:
                hub[x] = h
                hang[h] += 1.0
    pptr = np.zeros(n + 1, dtype=np.int64)
    for x in range(n):
        kept = 0
        if hub[x] < 0:
            for k in range(bptr[x], bptr[x + 1]):
                kept += hub[bidx[k]] < 0
        pptr[x + 1] = pptr[x] + kept
    pidx = np.empty(pptr[n], dtype=bidx.dtype)
    for x in range(n):
        w = pptr[x]
        if hub[x] < 0:
            for k in range(bptr[x], bptr[x + 1]):
                if hub[bidx[k]] < 0:
                    pidx[w] = bidx[k]
                    w += 1
    return pptr, pidx, hang, hub


@njit(**NUMBA_FLAGS)
def _sampled(mptr, key, exact, quota):
    """The sources, ascending: every block vertex of an exact block; of a sampled block
    k, the ``quota[k]`` with the smallest ``key`` (ties: the first). A stable sort of
    each sampled block's keys, where a lexsort of (key, block) over every membership cost
    1.9 s at 2M users for the same choice."""
    out = np.empty(quota.sum(), dtype=np.int64)
    w = 0
    for k in range(mptr.shape[0] - 1):
        a, e = mptr[k], mptr[k + 1]
        if exact[k]:
            for i in range(a, e):
                out[w] = i
                w += 1
            continue
        picked = np.sort(np.argsort(key[a:e], kind="mergesort")[: quota[k]])
        for i in picked:
            out[w] = a + i
            w += 1
    return out


def _searches(chosen, hub, hang):
    """The searches that stand for the ``chosen`` sources (a leaf's is its neighbour's,
    see :func:`~hpgraph.algorithms.betweenness._brandes_bfs`): (their sources,
    ascending; the (3, n) ``leaves`` array of hang counts, searches per source and leaf
    searches per source)."""
    leaves = np.zeros((3, hub.shape[0]), dtype=np.float64)
    leaves[0] = hang
    via = hub[chosen]
    of_leaf = via >= 0
    target = np.where(of_leaf, via, chosen)
    np.add.at(leaves[1], target, 1.0)
    np.add.at(leaves[2], target[of_leaf], 1.0)
    return np.flatnonzero(leaves[1]), leaves


@njit(**NUMBA_FLAGS)
def _top(mptr, mvert, bc, k):
    """Each block's ``k`` highest betweenness values (ties: the smaller vertex id), in
    rank order: (their block vertices, ranks from 1). One pass per block keeping a
    sorted list of k, where a lexsort of every membership took seconds at 8M users."""
    nb = mptr.shape[0] - 1
    rows = 0
    for b in range(nb):
        rows += min(k, mptr[b + 1] - mptr[b])
    sel = np.empty(rows, dtype=np.int64)
    rank = np.empty(rows, dtype=np.int64)
    w = 0
    for b in range(nb):
        m = 0  # the block's best so far: sel[w : w + m], best first
        for i in range(mptr[b], mptr[b + 1]):
            j = m
            while j > 0:  # i's place among the kept ones
                o = sel[w + j - 1]
                if bc[i] > bc[o] or (bc[i] == bc[o] and mvert[i] < mvert[o]):
                    j -= 1
                else:
                    break
            if j < k:
                top = min(m, k - 1)
                for t in range(top, j, -1):
                    sel[w + t] = sel[w + t - 1]
                sel[w + j] = i
                m = min(m + 1, k)
        for t in range(m):
            rank[w + t] = t + 1
        w += m
    return sel, rank


# ------------------------------------------------------------------ front end
def _cover_arrays(cover, n):
    if hasattr(cover, "ptr") and hasattr(cover, "community_of"):
        ptr, comm = cover.ptr, cover.community_of
    elif isinstance(cover, tuple) and len(cover) == 2:
        ptr, comm = cover
    else:
        raise InvalidArgumentError(
            "cover must be a BMLPAResult or a (ptr, community_of) pair of arrays"
        )
    ptr = np.asarray(ptr, dtype=np.int64)
    comm = np.asarray(comm, dtype=np.int64)
    if ptr.shape != (n + 1,) or ptr[0] != 0 or (np.diff(ptr) < 0).any() or ptr[-1] != comm.size:
        raise InvalidArgumentError(
            f"cover: ptr must be {n + 1} non-decreasing offsets from 0 to the {comm.size} "
            "memberships"
        )
    if comm.size and comm.min() < 0:
        raise InvalidArgumentError("cover: community ids must be >= 0")
    return ptr, comm


def _whole(name, value, lo):
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < lo:
        raise InvalidArgumentError(f"{name} must be an integer >= {lo}, got {value!r}")
    return int(value)


def community_leaders(
    graph,
    cover,
    *,
    leaders: int = 5,
    min_size: int = 10,
    exact_max: int = EXACT_MAX,
    samples: int = SAMPLES,
    seed: int = 0,
    threads: int | None = None,
    runtime=None,
    progress=False,
) -> LeadersResult:
    """The top ``leaders`` vertices by betweenness inside every community of ``cover``
    with at least ``min_size`` members (see the module docstring). ``cover``: a
    :class:`~hpgraph.algorithms.bmlpa.BMLPAResult` or ``(ptr, community_of)`` (vertex
    v's communities are ``community_of[ptr[v]:ptr[v+1]]``). Communities above
    ``exact_max`` members use ``samples`` sources drawn from ``seed``. ``progress``:
    True for a live line, or a :class:`hpgraph.progress.Progress`."""
    from hpgraph.graph.views import simple_view

    check_graph(graph)
    leaders = _whole("leaders", leaders, 1)
    min_size = _whole("min_size", min_size, 1)
    exact_max = _whole("exact_max", exact_max, 2)
    samples = _whole("samples", samples, 2)
    seed = _whole("seed", seed, 0)
    runtime, threads = resolve_runtime(runtime, threads)
    n = graph.n
    ptr, comm = _cover_arrays(cover, n)
    t0 = time.perf_counter()
    ncomm = int(comm.max()) + 1 if comm.size else 0
    sizes = np.bincount(comm, minlength=ncomm)
    eligible = np.flatnonzero(sizes >= min_size)
    # memberships of the eligible communities, by community then vertex
    bsize = sizes[eligible]
    mptr = np.zeros(eligible.size + 1, dtype=np.int64)
    np.cumsum(bsize, out=mptr[1:])
    # a counting sort (members ascending); an argsort took 1.5 s at 8M users
    mvert = _members(ptr, comm, ncomm)[1][np.repeat(sizes >= min_size, sizes)].astype(np.int64)
    mcomm = np.repeat(eligible, bsize)
    indptr, indices = simple_view(graph)
    bptr, bidx = _all_blocks(indptr, indices, mptr, mvert, threads)
    if bptr[-1] < 2**31 and mptr[-1] < 2**31:
        bidx = bidx.astype(np.int32)
    # sources: every member of an exact block but the leaves folded into their
    # neighbour's search; a seeded sample of the others
    exact = bsize <= exact_max
    block_of = np.repeat(np.arange(eligible.size, dtype=np.int64), bsize)
    key = np.random.default_rng(seed).random(mvert.size)
    quota = np.where(exact, bsize, np.minimum(samples, bsize))
    chosen = _sampled(mptr, key, exact, quota)
    nsrc = quota.astype(np.int64)
    induced = int(bptr[-1])
    bptr, bidx, hang, hub = _without_leaves(bptr, bidx)
    searches, leaves = _searches(chosen, hub, hang)
    edges_of_block = bptr[mptr[1:]] - bptr[mptr[:-1]]
    cost = (bsize + edges_of_block)[block_of[searches]].astype(np.float64)
    build_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    bc = np.zeros(mvert.size, dtype=np.float64)
    peers = 0
    if searches.size:
        res = run_bsp(
            _leaders_peer,
            peers=threads,
            args=(bptr, bidx, searches.astype(bidx.dtype), cost, leaves, progress),
            runtime=runtime,
        )
        peers = len(res.results)
        for part in res.results:
            bc += part
    brandes_s = time.perf_counter() - t1
    # NetworkX 3.6's rescaling per block (undirected, normalised, no endpoints)
    s = bsize.astype(np.float64)
    big_n = s - 1
    ks = np.where(exact, big_n, nsrc.astype(np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        s_exact = 1.0 / (ks * (big_n - 1))
        s_src = 1.0 / ((ks - 1) * (big_n - 1))
        s_other = 1.0 / (ks * (big_n - 1))
    is_src = np.zeros(mvert.size, dtype=bool)
    is_src[chosen] = True
    scale = np.where(
        exact[block_of], s_exact[block_of], np.where(is_src, s_src[block_of], s_other[block_of])
    )
    scale[(big_n < 2)[block_of]] = 1.0  # NetworkX leaves pairs and singletons unscaled
    bc *= scale
    # top leaders per block: betweenness descending, ties to the smaller vertex id
    sel, rank = _top(mptr, mvert, bc, leaders)
    result = LeadersResult(
        graph=graph,
        community=mcomm[sel],
        rank=rank,
        vertex=mvert[sel],
        betweenness=bc[sel],
        communities=eligible,
        exact=exact,
        sources=nsrc,
        meta={
            "leaders": leaders,
            "min_size": min_size,
            "exact_max": exact_max,
            "samples": samples,
            "seed": seed,
            "communities": int(eligible.size),
            "exact_communities": int(exact.sum()),
            "sampled_communities": int((~exact).sum()),
            "largest": int(bsize.max()) if bsize.size else 0,
            "memberships": int(mvert.size),
            "induced_edges": induced,
            "sources": int(chosen.size),
            "searches": int(searches.size),
            "leaves": int(hang.sum()),
            "build_s": build_s,
            "brandes_s": brandes_s,
            "peers": peers,
            "networkx_scaling": NETWORKX_VERSION,
        },
    )
    return result
