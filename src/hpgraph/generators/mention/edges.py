"""Given ``n`` and ``m``, returns a seeded mention-like graph (:func:`mention_graph`) or its
edge arrays (:func:`mention_edges`): a Zipf core where senders and targets are drawn by
``rank ** -exponent`` weights over random rankings, plus the stars and chains of
:mod:`._shape`, with vertex ids permuted at random (see :mod:`hpgraph.generators.mention`)."""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError
from hpgraph.generators._rng import check_seed, stream
from hpgraph.generators.mention._shape import check_shape, plan_groups, stars_and_chains
from hpgraph.graph import Graph, index_dtype

__all__ = ["mention_edges", "mention_graph"]

# stream keys (see _rng.stream; mention_tweets uses 8 to 12)
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
    check_shape(core_fraction, attach)
    idt = index_dtype(n)
    rng = np.random.Generator(stream(seed, _KEY_SHAPES))
    n_core = max(2, int(round(core_fraction * n)))
    star_sizes, chain_sizes, n_attach, m_core = plan_groups(rng, n, m, n_core, attach, "edges")
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
    heads, _ = stars_and_chains(rng, src, dst, m_core, n_core, star_sizes, chain_sizes)
    # attaching mentions: the first vertex of some stars and chains mentions a core user
    pick = rng.choice(heads.size, n_attach, replace=False) if n_attach else heads[:0]
    src[m - n_attach :] = heads[pick]
    dst[m - n_attach :] = hubs(n_attach)
    perm = np.random.Generator(stream(seed, _KEY_PERM)).permutation(n).astype(idt)
    return perm[src], perm[dst]


def mention_graph(n: int, m: int, *, seed: int = 0, directed: bool = True, **shape) -> Graph:
    """A seeded mention-like graph with ``n`` vertices and ``m`` edges (see
    :mod:`hpgraph.generators.mention`; ``shape`` passes ``core_fraction``,
    ``hub_exponent``, ``sender_exponent``, ``attach`` to :func:`mention_edges`)."""
    src, dst = mention_edges(n, m, seed=seed, **shape)
    return Graph.from_edges(src, dst, n=n, directed=directed, name=f"mention-{n}-{m}")
