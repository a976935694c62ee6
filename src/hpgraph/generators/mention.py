"""Mention-like graphs (the seed paper's Twitter input) and LFR benchmark graphs.

:func:`mention_graph` returns a seeded directed graph with ``n`` vertices and exactly ``m``
edges shaped like a Twitter mention graph (user i -> user j when i mentioned j): a
**core** of ``core_fraction * n`` users where every user mentions someone and the other
edges pick senders and targets by Zipf weights (``rank ** -sender_exponent`` and
``rank ** -hub_exponent`` over independent random rankings), so in-degrees are heavy
tailed and the top target is a hub with a few percent of all edges; and, on the other
vertices, many **small stars** (a centre and 1 + Geometric(0.25) leaves, each edge in a
random direction) and **chains** (2 + Geometric(0.35) users, each mentioning the next).
A share ``attach`` of the stars and chains also mentions a core user picked by the hub
weights, so they hang off the giant component instead of floating alone. Vertex ids are
permuted at random. Self-loops are avoided; repeated mentions (parallel edges) are kept.

Defaults for ``n = 8M, m = 10M``: 3.2M core users with about 5.9M edges (largest
in-degree about 400k), 480k stars and 490k chains with about 3.8M edges, 290k attaching
edges. Memory: the edge list (int32, 8 B per edge) and per-vertex weights (8 B per core
vertex) while the CSR is built; about 1.5 s for 10M edges on 2 cores.

:func:`lfr_graph` wraps NetworKit's LFR generator (Lancichinetti, Fortunato, Radicchi
2008; non-overlapping communities) for the BMLPA evaluation.
"""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.generators._rng import check_seed, stream
from hpgraph.graph import Graph, index_dtype

__all__ = ["mention_graph", "mention_edges", "lfr_graph"]

# stream keys (see _rng.stream)
_KEY_SHAPES, _KEY_CORE, _KEY_PERM = 0, 1, 2


def _zipf_sampler(rng, k, exponent):
    """A function drawing ``size`` ids in 0..k-1 with P(id) ~ (rank(id) + 1) ** -exponent
    for a random ranking (inverse CDF: one float64 per id)."""
    rank = rng.permutation(k)
    cdf = np.cumsum(np.arange(1, k + 1, dtype=np.float64) ** -exponent)
    cdf /= cdf[-1]

    def draw(size):
        r = np.searchsorted(cdf, rng.random(size), side="right")
        return rank[np.minimum(r, k - 1)]

    return draw


def _sizes(rng, budget, base, p):
    """Group sizes ``base + Geometric(p) - 1`` until ``budget`` vertices are used; the last
    group takes what is left (at least ``base``: otherwise it joins the previous one)."""
    mean = base + (1 - p) / p
    s = base - 1 + rng.geometric(p, int(budget / mean * 1.2) + 16)
    c = np.cumsum(s)
    k = int(np.searchsorted(c, budget, side="right"))
    s = s[:k].copy()
    rest = budget - int(s.sum())
    if rest >= base or k == 0:
        s = np.append(s, rest) if rest else s
    else:
        s[-1] += rest
    return s[s > 0]


def mention_edges(
    n: int,
    m: int,
    *,
    seed: int = 0,
    core_fraction: float = 0.4,
    hub_exponent: float = 1.0,
    sender_exponent: float = 0.7,
    attach: float = 0.3,
):
    """``(src, dst)`` arrays of :func:`mention_graph` (int32 below 2**31 vertices)."""
    seed = check_seed(seed)
    if n < 2 or m < 1:
        raise InvalidArgumentError(f"a mention graph needs n >= 2 and m >= 1, got n={n}, m={m}")
    if not 0.0 < core_fraction <= 1.0 or not 0.0 <= attach <= 1.0:
        raise InvalidArgumentError(
            f"core_fraction must be in (0, 1] and attach in [0, 1], got {core_fraction}, {attach}"
        )
    idt = index_dtype(n)
    rng = np.random.Generator(stream(seed, _KEY_SHAPES))
    n_core = max(2, int(round(core_fraction * n)))
    rest = n - n_core
    star_sizes = _sizes(rng, rest // 2, 2, 0.25)  # centre + leaves
    chain_sizes = _sizes(rng, rest - rest // 2, 2, 0.35)
    small_edges = int(star_sizes.sum() - star_sizes.size + chain_sizes.sum() - chain_sizes.size)
    groups = star_sizes.size + chain_sizes.size
    n_attach = int(round(attach * groups))
    m_core = m - small_edges - n_attach
    if m_core < n_core:
        raise InvalidArgumentError(
            f"m={m:,} is too small for n={n:,}: the stars and chains take {small_edges:,} "
            f"edges and every one of the {n_core:,} core users needs one; raise m or "
            f"core_fraction"
        )
    src = np.empty(m, dtype=idt)
    dst = np.empty(m, dtype=idt)
    crng = np.random.Generator(stream(seed, _KEY_CORE))
    hubs = _zipf_sampler(crng, n_core, hub_exponent)
    senders = _zipf_sampler(crng, n_core, sender_exponent)
    # core: every user mentions one user, then the rest by Zipf weights
    src[:n_core] = np.arange(n_core)
    src[n_core:m_core] = senders(m_core - n_core)
    dst[:m_core] = hubs(m_core)
    loop = src[:m_core] == dst[:m_core]
    dst[:m_core][loop] = (dst[:m_core][loop] + 1) % n_core
    # stars: vertex blocks after the core; the centre is the block's first vertex
    pos = m_core
    start = n_core + np.concatenate([[0], np.cumsum(star_sizes)[:-1]]).astype(np.int64)
    owner = np.repeat(np.arange(star_sizes.size), star_sizes - 1)
    first_leaf = np.concatenate([[0], np.cumsum(star_sizes - 1)[:-1]])
    leaf = start[owner] + 1 + (np.arange(owner.size) - first_leaf[owner])
    centre = start[owner]
    flip = rng.random(owner.size) < 0.5
    src[pos : pos + owner.size] = np.where(flip, leaf, centre)
    dst[pos : pos + owner.size] = np.where(flip, centre, leaf)
    pos += owner.size
    # chains: v -> v + 1 inside each block
    base = n_core + int(star_sizes.sum())
    cstart = base + np.concatenate([[0], np.cumsum(chain_sizes)[:-1]]).astype(np.int64)
    cowner = np.repeat(np.arange(chain_sizes.size), chain_sizes - 1)
    cfirst = np.concatenate([[0], np.cumsum(chain_sizes - 1)[:-1]])
    a = cstart[cowner] + (np.arange(cowner.size) - cfirst[cowner])
    src[pos : pos + a.size] = a
    dst[pos : pos + a.size] = a + 1
    pos += a.size
    # attaching mentions: the first vertex of some stars and chains mentions a core user
    heads = np.concatenate([start, cstart])
    pick = rng.choice(heads.size, n_attach, replace=False) if n_attach else heads[:0]
    src[pos:] = heads[pick]
    dst[pos:] = hubs(n_attach)
    perm = np.random.Generator(stream(seed, _KEY_PERM)).permutation(n).astype(idt)
    return perm[src], perm[dst]


def mention_graph(n: int, m: int, *, seed: int = 0, directed: bool = True, **shape) -> Graph:
    """A seeded mention-like graph with ``n`` vertices and ``m`` edges (see the module
    docstring; ``shape`` passes ``core_fraction``, ``hub_exponent``, ``sender_exponent``,
    ``attach`` to :func:`mention_edges`)."""
    src, dst = mention_edges(n, m, seed=seed, **shape)
    return Graph.from_edges(src, dst, n=n, directed=directed, name=f"mention-{n}-{m}")


def lfr_graph(
    n: int,
    mu: float,
    *,
    average_degree: int = 20,
    max_degree: int = 50,
    degree_exponent: float = 2.0,
    min_community: int = 20,
    max_community: int = 100,
    community_exponent: float = 1.0,
    seed: int = 0,
):
    """An LFR benchmark graph (NetworKit's generator, non-overlapping communities): returns
    ``(graph, membership)``, an undirected :class:`Graph` and the planted community of
    every vertex. ``mu`` is the mixing parameter (share of each vertex's edges leaving its
    community). NetworKit runs on one thread with ``seed`` so the graph is reproducible."""
    seed = check_seed(seed)
    if not 0.0 <= mu <= 1.0:
        raise InvalidArgumentError(f"mu must be in [0, 1], got {mu!r}")
    try:
        import networkit as nk
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise InvalidArgumentError("lfr_graph needs networkit: pip install networkit") from exc
    threads = nk.getMaxNumberOfThreads()
    nk.setNumberOfThreads(1)
    nk.setSeed(seed, False)
    try:
        gen = nk.generators.LFRGenerator(n)
        gen.generatePowerlawDegreeSequence(average_degree, max_degree, -degree_exponent)
        gen.generatePowerlawCommunitySizeSequence(min_community, max_community, -community_exponent)
        gen.setMu(mu)
        gen.run()
        g = gen.getGraph()
        part = gen.getPartition()
    finally:
        nk.setNumberOfThreads(threads)
    from scipy import sparse

    upper = sparse.triu(nk.algebraic.adjacencyMatrix(g, matrixType="sparse")).tocoo()
    graph = Graph.from_edges(upper.row, upper.col, n=n, directed=False, name=f"lfr-{n}-mu{mu:g}")
    membership = np.asarray(part.getVector(), dtype=np.int64)
    return graph, membership
