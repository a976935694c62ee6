"""The layout both mention generators share: a Zipf core of users and, on the other
users, small stars (a centre and 1 + Geometric(0.25) leaves) and chains (2 +
Geometric(0.35) users), a share of which attaches to the core."""

from __future__ import annotations

import numpy as np

from hpgraph.errors import InvalidArgumentError

__all__ = ["check_shape", "plan_groups", "stars_and_chains"]


def check_shape(core_fraction, attach):
    """InvalidArgumentError unless ``core_fraction`` is in (0, 1] and ``attach`` in [0, 1]."""
    if not 0.0 < core_fraction <= 1.0 or not 0.0 <= attach <= 1.0:
        raise InvalidArgumentError(
            f"core_fraction must be in (0, 1] and attach in [0, 1], got {core_fraction}, {attach}"
        )


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


def plan_groups(rng, n, m, n_core, attach, unit):
    """``(star_sizes, chain_sizes, n_attach, m_core)``: the stars and chains on the
    ``n - n_core`` users after the core, how many of them attach to the core, and the
    edges left for the core (an error if fewer than its users; ``unit`` names the edges
    in it)."""
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
            f"{unit} and every one of the {n_core:,} core users needs one; raise m or "
            f"core_fraction"
        )
    return star_sizes, chain_sizes, n_attach, m_core


def _blocks(offset, sizes):
    """``(start, owner, rank)`` of blocks of ``sizes`` vertices laid out from ``offset``:
    every block's first vertex, and for each of a block's ``size - 1`` edges its block and
    its place in the block."""
    start = offset + np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    owner = np.repeat(np.arange(sizes.size), sizes - 1)
    first = np.concatenate([[0], np.cumsum(sizes - 1)[:-1]])
    return start, owner, np.arange(owner.size) - first[owner]


def stars_and_chains(rng, src, dst, pos, n_core, star_sizes, chain_sizes):
    """Write the stars' and chains' edges from ``pos``: stars are vertex blocks after the
    core (the centre first, each edge in a random direction), chains the blocks after
    them (v -> v + 1). Returns ``(heads, group)``: every block's first vertex (stars,
    then chains) and the block of each edge written."""
    start, owner, rank = _blocks(n_core, star_sizes)
    leaf = start[owner] + 1 + rank
    centre = start[owner]
    flip = rng.random(owner.size) < 0.5
    src[pos : pos + owner.size] = np.where(flip, leaf, centre)
    dst[pos : pos + owner.size] = np.where(flip, centre, leaf)
    pos += owner.size
    cstart, cowner, crank = _blocks(n_core + int(star_sizes.sum()), chain_sizes)
    a = cstart[cowner] + crank
    src[pos : pos + a.size] = a
    dst[pos : pos + a.size] = a + 1
    return np.concatenate([start, cstart]), np.concatenate([owner, star_sizes.size + cowner])
