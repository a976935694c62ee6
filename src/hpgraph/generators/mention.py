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

:func:`mention_tweets` adds what the seed's pipeline reads from tweets: hashtags and
planted **topics**. On the same layout (core, stars, chains, attaching mentions), every
core user belongs to a topic drawn by Zipf weights (a share ``overlap`` to two or three),
every star and chain to one. A core user's mentions each pick one of its topics and go
to that topic's hubs (the hub weights restricted to its members), or with probability
``mixing`` (default 10%) to any hub; so topic users mention each other far more than
chance, while hubs stay heavy and the degree-1 share stays near 53%. (With 30% mixing
the global hubs join the topics so strongly that label propagation floods the whole
core with one label.) Hashtags have Zipf popularity by id
(``tag000...`` is the most used) and each belongs to one topic; a share ``tagged`` of
the mentions (default 30%: most tweets carry none) carries Geometric(0.65) hashtags
(mean 1.5, repeats counted once), each from the mention's topic or, with probability
``general`` (default 5%), from all hashtags. Sampling uses alias tables (O(1) a draw) in compiled
loops: 8M users and 10M mentions take about as long as :func:`mention_edges`
(docs/mentions.md has the numbers). :func:`mention_data` wraps the arrays as
:class:`~hpgraph.io.mentions.Mentions` with the planted truth (:class:`PlantedTopics`).

:func:`lfr_graph` wraps NetworKit's LFR generator (Lancichinetti, Fortunato, Radicchi
2008; non-overlapping communities) for the BMLPA evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators._rng import check_seed, stream
from hpgraph.graph import Graph, index_dtype
from hpgraph.graph._rows import insert_distinct

__all__ = [
    "mention_graph",
    "mention_edges",
    "mention_tweets",
    "mention_data",
    "MentionTweets",
    "PlantedTopics",
    "lfr_graph",
]

# stream keys (see _rng.stream)
_KEY_SHAPES, _KEY_CORE, _KEY_PERM = 0, 1, 2
_KEY_T_SHAPES, _KEY_T_TOPICS, _KEY_T_CORE, _KEY_T_TAGS, _KEY_T_PERM = 8, 9, 10, 11, 12


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


def _layout(rng, n, m, n_core, attach, unit):
    """``(star_sizes, chain_sizes, n_attach, m_core)``: the stars and chains on the
    ``n - n_core`` users after the core, how many of them attach to the core, and the
    edges left for the core (an error if fewer than its users)."""
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


def _stars_and_chains(rng, src, dst, pos, n_core, star_sizes, chain_sizes):
    """Write the stars' and chains' edges from ``pos``: stars are vertex blocks after the
    core (the centre first, each edge in a random direction), chains the blocks after
    them (v -> v + 1). Returns ``(heads, group)``: every block's first vertex (stars,
    then chains) and the block of each edge written."""
    start = n_core + np.concatenate([[0], np.cumsum(star_sizes)[:-1]]).astype(np.int64)
    owner = np.repeat(np.arange(star_sizes.size), star_sizes - 1)
    first_leaf = np.concatenate([[0], np.cumsum(star_sizes - 1)[:-1]])
    leaf = start[owner] + 1 + (np.arange(owner.size) - first_leaf[owner])
    centre = start[owner]
    flip = rng.random(owner.size) < 0.5
    src[pos : pos + owner.size] = np.where(flip, leaf, centre)
    dst[pos : pos + owner.size] = np.where(flip, centre, leaf)
    pos += owner.size
    base = n_core + int(star_sizes.sum())
    cstart = base + np.concatenate([[0], np.cumsum(chain_sizes)[:-1]]).astype(np.int64)
    cowner = np.repeat(np.arange(chain_sizes.size), chain_sizes - 1)
    cfirst = np.concatenate([[0], np.cumsum(chain_sizes - 1)[:-1]])
    a = cstart[cowner] + (np.arange(cowner.size) - cfirst[cowner])
    src[pos : pos + a.size] = a
    dst[pos : pos + a.size] = a + 1
    return np.concatenate([start, cstart]), np.concatenate([owner, star_sizes.size + cowner])


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
    star_sizes, chain_sizes, n_attach, m_core = _layout(rng, n, m, n_core, attach, "edges")
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
    heads, _ = _stars_and_chains(rng, src, dst, m_core, n_core, star_sizes, chain_sizes)
    # attaching mentions: the first vertex of some stars and chains mentions a core user
    pick = rng.choice(heads.size, n_attach, replace=False) if n_attach else heads[:0]
    src[m - n_attach :] = heads[pick]
    dst[m - n_attach :] = hubs(n_attach)
    perm = np.random.Generator(stream(seed, _KEY_PERM)).permutation(n).astype(idt)
    return perm[src], perm[dst]


def mention_graph(n: int, m: int, *, seed: int = 0, directed: bool = True, **shape) -> Graph:
    """A seeded mention-like graph with ``n`` vertices and ``m`` edges (see the module
    docstring; ``shape`` passes ``core_fraction``, ``hub_exponent``, ``sender_exponent``,
    ``attach`` to :func:`mention_edges`)."""
    src, dst = mention_edges(n, m, seed=seed, **shape)
    return Graph.from_edges(src, dst, n=n, directed=directed, name=f"mention-{n}-{m}")


@dataclass
class PlantedTopics:
    """The topics :func:`mention_tweets` planted. ``user_topics[user_ptr[u]:user_ptr[u +
    1]]``: user u's topics (ascending; one to three for a core user, its group's topic
    for a star or chain user); ``tag_topic``: the topic of every hashtag id; ``core``:
    whether each user is in the Zipf core (where the topics shape who mentions whom)."""

    num_topics: int
    user_ptr: np.ndarray
    user_topics: np.ndarray
    tag_topic: np.ndarray
    core: np.ndarray

    def topic_tags(self):
        """``(ptr, tags)``: topic k's hashtag ids are ``tags[ptr[k]:ptr[k + 1]]``."""
        order = np.argsort(self.tag_topic, kind="stable").astype(np.int32)
        ptr = np.zeros(self.num_topics + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.tag_topic, minlength=self.num_topics), out=ptr[1:])
        return ptr, order


class MentionTweets(NamedTuple):
    """Raw arrays of :func:`mention_tweets`: user ids ``0..n-1``, mention i's hashtags
    ``tag_ids[tag_ptr[i]:tag_ptr[i + 1]]`` (ascending, distinct) into ``tag_names``."""

    src: np.ndarray
    dst: np.ndarray
    tag_ptr: np.ndarray
    tag_ids: np.ndarray
    tag_names: list
    planted: PlantedTopics


_ONE = float(2**53)  # alias thresholds are integers: keep the slot if fraction * 2**53 < it


@njit(**NUMBA_FLAGS)
def _alias_tables(seg_ptr, weights, items):
    """Walker/Vose alias tables, one per segment ``seg_ptr[k]..seg_ptr[k+1]-1`` of
    ``weights``, packed one row per slot so that a draw reads one cache line: slot j
    gives ``row[1]`` (its own item) if the uniform fraction times 2**53 is below
    ``row[0]``, else ``row[2]`` (its alias's item)."""
    total = weights.shape[0]
    prob = np.empty(total, dtype=np.float64)
    alias = np.empty(total, dtype=np.int64)
    small = np.empty(total, dtype=np.int64)
    large = np.empty(total, dtype=np.int64)
    for k in range(seg_ptr.shape[0] - 1):
        a, b = seg_ptr[k], seg_ptr[k + 1]
        w = 0.0
        for j in range(a, b):
            w += weights[j]
        ns = 0
        nl = 0
        for j in range(a, b):
            alias[j] = j
            prob[j] = weights[j] * (b - a) / w
            if prob[j] < 1.0:
                small[ns] = j
                ns += 1
            else:
                large[nl] = j
                nl += 1
        while ns and nl:
            ns -= 1
            lo = small[ns]
            hi = large[nl - 1]
            alias[lo] = hi
            prob[hi] -= 1.0 - prob[lo]
            if prob[hi] < 1.0:
                nl -= 1
                small[ns] = hi
                ns += 1
        for q in range(ns):
            prob[small[q]] = 1.0
        for q in range(nl):
            prob[large[q]] = 1.0
    table = np.zeros((total, 4), dtype=np.int64)
    for j in range(total):
        table[j, 0] = np.int64(prob[j] * _ONE)
        table[j, 1] = items[j]
        table[j, 2] = items[alias[j]]
    return table


@njit(**NUMBA_FLAGS)
def _alias_one(tables, k, u):
    """The item of segment ``k`` for the uniform ``u`` (slot = integer part of
    ``u * size``; the fraction decides between the slot's item and its alias's)."""
    seg_ptr, table = tables
    size = seg_ptr[k + 1] - seg_ptr[k]
    x = u * size
    j = min(int(x), size - 1)
    r = seg_ptr[k] + j
    return table[r, 1] if np.int64((x - j) * _ONE) < table[r, 0] else table[r, 2]


@njit(**NUMBA_FLAGS)
def _alias_draw(tables, seg, u):
    """:func:`_alias_one` for every ``u[i]``, in segment ``seg[i]`` (0 if ``seg`` is
    empty)."""
    out = np.empty(u.shape[0], dtype=np.int64)
    for i in range(u.shape[0]):
        out[i] = _alias_one(tables, seg[i] if seg.shape[0] else 0, u[i])
    return out


@njit(**NUMBA_FLAGS)
def _core_kernel(rng, sent, uptr, mem_topic, topic_hubs, hubs, mixing, src, dst, topic):
    """User u sends ``sent[u]`` mentions, in order of u: each in a random one of u's
    topics, to a hub of that topic (redrawn up to three times if it is u) or, with
    probability ``mixing``, to any hub; a remaining self-mention goes to u + 1."""
    n_core = sent.shape[0]
    pos = 0
    for u in range(n_core):
        a = uptr[u]
        deg = uptr[u + 1] - a
        for _ in range(sent[u]):
            k = mem_topic[a + min(int(rng.random() * deg), deg - 1)]
            if rng.random() >= mixing:
                v = _alias_one(topic_hubs, k, rng.random())
                for _ in range(3):
                    if v != u:
                        break
                    v = _alias_one(topic_hubs, k, rng.random())
            else:
                v = _alias_one(hubs, 0, rng.random())
            if v == u:
                v = (v + 1) % n_core
            src[pos] = u
            dst[pos] = v
            topic[pos] = k
            pos += 1


@njit(**NUMBA_FLAGS)
def _tag_kernel(rng, topic, tagged, general, in_topic, anywhere):
    """``(tag_ptr, tag_ids)``: mention i is tagged with probability ``tagged``; then it
    draws Geometric(0.65) hashtags, each from its topic's (``in_topic``) or, with
    probability ``general``, from all (``anywhere``); repeats count once, ids
    ascending."""
    m = topic.shape[0]
    counts = np.zeros(m, dtype=np.int64)
    for i in range(m):
        if rng.random() < tagged:
            counts[i] = rng.geometric(0.65)
    ptr = np.zeros(m + 1, dtype=np.int64)
    out = np.empty(counts.sum(), dtype=np.int32)
    o = 0
    for i in range(m):
        a = o
        for _ in range(counts[i]):
            if rng.random() < general:
                x = _alias_one(anywhere, 0, rng.random())
            else:
                x = _alias_one(in_topic, topic[i], rng.random())
            o = insert_distinct(out, a, o, x)
        ptr[i + 1] = o
    return ptr, out[:o].copy()


@njit(**NUMBA_FLAGS)
def _permute_rows(perm, ptr, vals):
    """The CSR ``(ptr, vals)`` with row u moved to row ``perm[u]``."""
    n = perm.shape[0]
    new_ptr = np.zeros(n + 1, dtype=np.int64)
    for u in range(n):
        new_ptr[perm[u] + 1] = ptr[u + 1] - ptr[u]
    for v in range(n):
        new_ptr[v + 1] += new_ptr[v]
    out = np.empty(vals.shape[0], dtype=vals.dtype)
    for u in range(n):
        o = new_ptr[perm[u]]
        for e in range(ptr[u], ptr[u + 1]):
            out[o] = vals[e]
            o += 1
    return new_ptr, out


def _segment_sampler(rng, seg_ptr, weights, items=None):
    """A function drawing, for each segment id in ``seg``, an item of that segment
    (``items[seg_ptr[k]:seg_ptr[k+1]]``, default their positions) with probability ~
    ``weights`` (alias method: O(1) a draw; every segment must be non-empty). Its
    ``tables`` feed the compiled loops' :func:`_alias_one`."""
    seg_ptr = np.ascontiguousarray(seg_ptr, dtype=np.int64)
    if items is None:
        items = np.arange(weights.shape[0], dtype=np.int64)
    w = np.ascontiguousarray(weights, dtype=np.float64)
    tables = (seg_ptr, _alias_tables(seg_ptr, w, np.ascontiguousarray(items, dtype=np.int64)))

    def draw(seg):
        seg = np.ascontiguousarray(seg, dtype=np.int64)
        return _alias_draw(tables, seg, rng.random(seg.shape[0]))

    draw.tables = tables
    return draw


def _weighted_sampler(rng, weights):
    """A function drawing ``size`` ids with probability ~ ``weights`` (alias method)."""
    one = _segment_sampler(rng, np.array([0, weights.shape[0]]), weights)
    none = np.empty(0, dtype=np.int64)

    def draw(size):
        return _alias_draw(one.tables, none, rng.random(size))

    draw.tables = one.tables
    return draw


def _zipf_weights(rng, k, exponent):
    """``(rank + 1) ** -exponent`` for a random ranking of ``0..k-1``."""
    w = np.empty(k, dtype=np.float64)
    w[rng.permutation(k)] = np.arange(1, k + 1, dtype=np.float64) ** -exponent
    return w


def _memberships(rng, topic_of, n_core, topics, overlap):
    """``(uptr, mem_user, mem_topic)``: the core users' topics as a CSR by user. Every
    user gets a topic by weight (the first ``topics`` random users one each, so no topic
    is empty); a share ``overlap`` a second, a quarter of those a third (a draw, moved
    to another topic if it repeats one; dropped if it still does)."""
    k_u = 1 + (rng.random(n_core) < overlap).astype(np.int64)
    k_u += (k_u == 2) & (rng.random(n_core) < 0.25)
    first = topic_of(n_core)
    first[rng.permutation(n_core)[:topics]] = np.arange(topics)
    mem_user = np.repeat(np.arange(n_core), k_u)
    mem_topic = np.repeat(first, k_u)
    uptr = np.zeros(n_core + 1, dtype=np.int64)
    np.cumsum(k_u, out=uptr[1:])
    for extra in (1, 2):
        at = uptr[:-1][k_u > extra] + extra
        t = topic_of(at.size)
        for prev in range(extra):
            clash = t == mem_topic[at - extra + prev]
            t[clash] = (t[clash] + 1 + rng.integers(0, max(topics - 1, 1), clash.sum())) % topics
        mem_topic[at] = t
    keep = np.ones(mem_user.size, dtype=bool)
    for extra in (1, 2):
        at = uptr[:-1][k_u > extra] + extra
        for prev in range(extra):
            keep[at[mem_topic[at] == mem_topic[at - extra + prev]]] = False
    mem_user, mem_topic = mem_user[keep], mem_topic[keep]
    np.cumsum(np.bincount(mem_user, minlength=n_core), out=uptr[1:])
    return uptr, mem_user, mem_topic


def mention_tweets(
    n: int,
    m: int,
    *,
    hashtags: int = 20_000,
    topics: int | None = None,
    seed: int = 0,
    tagged: float = 0.3,
    mixing: float = 0.1,
    overlap: float = 0.1,
    general: float = 0.05,
    tag_exponent: float = 1.0,
    topic_exponent: float = 0.5,
    core_fraction: float = 0.4,
    hub_exponent: float = 1.0,
    sender_exponent: float = 0.7,
    attach: float = 0.3,
) -> MentionTweets:
    """Mentions with hashtags and planted topics (see the module docstring and
    docs/mentions.md): ``n`` users, exactly ``m`` mentions, ``hashtags`` hashtags named
    ``tag00000``... by popularity rank, ``topics`` topics (default ``hashtags // 20``,
    at most one per 50 core users). ``tagged``: share of mentions with hashtags;
    ``mixing``: share of mentions whose target ignores the topic; ``overlap``: share of
    core users in more than one topic (a quarter of them in three); ``general``: share
    of hashtags drawn from all hashtags instead of the mention's topic; the rest shape
    the graph as in :func:`mention_edges`."""
    seed = check_seed(seed)
    if n < 2 or m < 1:
        raise InvalidArgumentError(f"mentions need n >= 2 and m >= 1, got n={n}, m={m}")
    for what, v in (("tagged", tagged), ("mixing", mixing), ("general", general)):
        if not 0.0 <= v <= 1.0:
            raise InvalidArgumentError(f"{what} must be in [0, 1], got {v!r}")
    if not 0.0 <= overlap <= 0.8:
        raise InvalidArgumentError(f"overlap must be in [0, 0.8], got {overlap!r}")
    if not 0.0 < core_fraction <= 1.0 or not 0.0 <= attach <= 1.0:
        raise InvalidArgumentError(
            f"core_fraction must be in (0, 1] and attach in [0, 1], got {core_fraction}, {attach}"
        )
    n_core = max(2, int(round(core_fraction * n)))
    if topics is None:
        topics = max(1, min(hashtags // 20, n_core // 50))
    if hashtags < 1 or not 1 <= topics <= min(hashtags, n_core):
        raise InvalidArgumentError(
            f"need 1 <= topics <= hashtags and topics <= core users ({n_core:,}); got "
            f"hashtags={hashtags:,}, topics={topics:,}"
        )
    idt = index_dtype(n)
    rng = np.random.Generator(stream(seed, _KEY_T_SHAPES))
    star_sizes, chain_sizes, n_attach, m_core = _layout(rng, n, m, n_core, attach, "mentions")

    # topics: Zipf-weighted sizes; core users in 1-3 of them; every topic has a user
    trng = np.random.Generator(stream(seed, _KEY_T_TOPICS))
    topic_of = _weighted_sampler(trng, _zipf_weights(trng, topics, topic_exponent))
    uptr, mem_user, mem_topic = _memberships(trng, topic_of, n_core, topics, overlap)

    # hashtags: Zipf popularity by rank (= id); every topic owns one, the rest by weight
    tag_w = np.arange(1, hashtags + 1, dtype=np.float64) ** -tag_exponent
    tag_topic = topic_of(hashtags)
    tag_topic[trng.permutation(hashtags)[:topics]] = np.arange(topics)
    tag_order = np.argsort(tag_topic, kind="stable")
    tag_seg = np.zeros(topics + 1, dtype=np.int64)
    np.cumsum(np.bincount(tag_topic, minlength=topics), out=tag_seg[1:])

    # core mentions: every user once, the rest by Zipf sender weight, each in one of the
    # sender's topics; targets are the topic's hubs (hub weights restricted to its
    # members) or, for a share ``mixing``, anyone's (the global hub weights)
    crng = np.random.Generator(stream(seed, _KEY_T_CORE))
    hub_w = _zipf_weights(crng, n_core, hub_exponent)
    hubs = _weighted_sampler(crng, hub_w)
    senders = _weighted_sampler(crng, _zipf_weights(crng, n_core, sender_exponent))
    sent = 1 + np.bincount(senders(m_core - n_core), minlength=n_core)
    mem_order = np.argsort(mem_topic, kind="stable")
    mem_seg = np.zeros(topics + 1, dtype=np.int64)
    np.cumsum(np.bincount(mem_topic, minlength=topics), out=mem_seg[1:])
    by_topic = mem_user[mem_order]
    topic_hubs = _segment_sampler(crng, mem_seg, hub_w[by_topic], by_topic)
    src = np.empty(m, dtype=np.int64)
    dst = np.empty(m, dtype=np.int64)
    topic = np.empty(m, dtype=np.int32)
    _core_kernel(
        crng,
        sent,
        uptr,
        mem_topic,
        topic_hubs.tables,
        hubs.tables,
        mixing,
        src,
        dst,
        topic,
    )
    del sent, mem_order

    # stars, chains and attaching mentions (as in mention_edges), each group in a topic
    heads, group = _stars_and_chains(rng, src, dst, m_core, n_core, star_sizes, chain_sizes)
    group_topic = topic_of(heads.size)
    pos = m - n_attach
    topic[m_core:pos] = group_topic[group]
    del group
    chosen = rng.choice(heads.size, n_attach, replace=False) if n_attach else heads[:0]
    src[pos:] = heads[chosen]
    topic[pos:] = group_topic[chosen]
    inside = rng.random(n_attach) >= mixing
    d = hubs(n_attach)
    d[inside] = topic_hubs(topic[pos:][inside])
    dst[pos:] = d

    # hashtags of each mention: a share ``tagged`` carries Geometric(0.65) draws (mean
    # 1.5), each from the mention's topic or, for a share ``general``, from all hashtags
    grng = np.random.Generator(stream(seed, _KEY_T_TAGS))
    in_topic = _segment_sampler(grng, tag_seg, tag_w[tag_order], tag_order)
    anywhere = _weighted_sampler(grng, tag_w)
    tag_ptr, tag_ids = _tag_kernel(grng, topic, tagged, general, in_topic.tables, anywhere.tables)
    del topic

    # planted truth, then random user ids
    group_size = np.concatenate([star_sizes, chain_sizes])
    user_ptr = np.zeros(n + 1, dtype=np.int64)
    user_ptr[1 : n_core + 1] = uptr[1:]
    user_ptr[n_core + 1 :] = uptr[-1] + np.arange(1, n - n_core + 1)
    user_topics = np.concatenate([mem_topic, np.repeat(group_topic, group_size)]).astype(np.int32)
    perm = np.random.Generator(stream(seed, _KEY_T_PERM)).permutation(n).astype(idt)
    new_ptr, new_topics = _permute_rows(perm, user_ptr, user_topics)
    core = np.zeros(n, dtype=bool)
    core[perm[:n_core]] = True
    width = len(str(hashtags - 1))
    planted = PlantedTopics(topics, new_ptr, new_topics, tag_topic.astype(np.int32), core)
    return MentionTweets(
        perm[src],
        perm[dst],
        tag_ptr,
        tag_ids,
        [f"tag{r:0{width}d}" for r in range(hashtags)],
        planted,
    )


def mention_data(n: int, m: int, **kw):
    """``(mentions, planted)``: :func:`mention_tweets` as a
    :class:`~hpgraph.io.mentions.Mentions` (with its user graph) and the
    :class:`PlantedTopics`."""
    from hpgraph.io.mentions import Mentions

    t = mention_tweets(n, m, **kw)
    mentions = Mentions.from_arrays(
        t.src, t.dst, t.tag_ptr, t.tag_ids, t.tag_names, n=n, name=f"mentions-{n}-{m}"
    )
    return mentions, t.planted


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
