"""Given ``n`` users and ``m`` mentions, returns mentions with hashtags and planted topics
(:func:`mention_tweets`; :func:`mention_data` as :class:`~hpgraph.io.mentions.Mentions`):
the layout of :func:`~hpgraph.generators.mention.mention_edges`, where every mention of a
core user is in one of the sender's topics and goes to that topic's hubs (see
:mod:`hpgraph.generators.mention` and docs/mentions.md)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.errors import InvalidArgumentError
from hpgraph.generators._rng import check_seed, stream
from hpgraph.generators.mention._alias import (
    alias_one,
    segment_sampler,
    segments,
    weighted_sampler,
    zipf_weights,
)
from hpgraph.generators.mention._shape import check_shape, plan_groups, stars_and_chains
from hpgraph.generators.mention.hashtags import draw_hashtags, hashtag_topics, tag_names
from hpgraph.generators.mention.planted import PlantedTopics, memberships, planted_topics
from hpgraph.graph import index_dtype

__all__ = ["mention_tweets", "mention_data", "MentionTweets"]

# stream keys (see _rng.stream; mention_edges uses 0 to 2)
_KEY_SHAPES, _KEY_TOPICS, _KEY_CORE, _KEY_TAGS, _KEY_PERM = 8, 9, 10, 11, 12


class MentionTweets(NamedTuple):
    """Raw arrays of :func:`mention_tweets`: user ids ``0..n-1``, mention i's hashtags
    ``tag_ids[tag_ptr[i]:tag_ptr[i + 1]]`` (ascending, distinct) into ``tag_names``."""

    src: np.ndarray
    dst: np.ndarray
    tag_ptr: np.ndarray
    tag_ids: np.ndarray
    tag_names: list
    planted: PlantedTopics


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
                v = alias_one(topic_hubs, k, rng.random())
                for _ in range(3):
                    if v != u:
                        break
                    v = alias_one(topic_hubs, k, rng.random())
            else:
                v = alias_one(hubs, 0, rng.random())
            if v == u:
                v = (v + 1) % n_core
            src[pos] = u
            dst[pos] = v
            topic[pos] = k
            pos += 1


def _core_mentions(rng, m, m_core, members, topics, mixing, hub_exponent, sender_exponent):
    """``(src, dst, topic, hubs, topic_hubs)``: ``m``-long arrays whose first ``m_core``
    mentions are the core's (every user once, the rest by Zipf sender weight, each in one
    of the sender's topics, to the topic's hubs: the hub weights restricted to its
    members, or for a share ``mixing`` to anyone's), and the samplers of the hubs and of
    a topic's hubs. ``members``: ``(uptr, mem_user, mem_topic)`` of :func:`memberships`."""
    uptr, mem_user, mem_topic = members
    n_core = uptr.shape[0] - 1
    hub_w = zipf_weights(rng, n_core, hub_exponent)
    hubs = weighted_sampler(rng, hub_w)
    senders = weighted_sampler(rng, zipf_weights(rng, n_core, sender_exponent))
    sent = 1 + np.bincount(senders(m_core - n_core), minlength=n_core)
    mem_order, mem_seg = segments(mem_topic, topics)
    by_topic = mem_user[mem_order]
    topic_hubs = segment_sampler(rng, mem_seg, hub_w[by_topic], by_topic)
    src = np.empty(m, dtype=np.int64)
    dst = np.empty(m, dtype=np.int64)
    topic = np.empty(m, dtype=np.int32)
    _core_kernel(
        rng, sent, uptr, mem_topic, topic_hubs.tables, hubs.tables, mixing, src, dst, topic
    )
    return src, dst, topic, hubs, topic_hubs


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
    """Mentions with hashtags and planted topics (see :mod:`hpgraph.generators.mention`
    and docs/mentions.md): ``n`` users, exactly ``m`` mentions, ``hashtags`` hashtags named
    ``tag00000``... by popularity rank, ``topics`` topics (default ``hashtags // 20``,
    at most one per 50 core users). ``tagged``: share of mentions with hashtags;
    ``mixing``: share of mentions whose target ignores the topic; ``overlap``: share of
    core users in more than one topic (a quarter of them in three); ``general``: share
    of hashtags drawn from all hashtags instead of the mention's topic; the rest shape
    the graph as in :func:`~hpgraph.generators.mention.mention_edges`."""
    seed = check_seed(seed)
    if n < 2 or m < 1:
        raise InvalidArgumentError(f"mentions need n >= 2 and m >= 1, got n={n}, m={m}")
    for what, v in (("tagged", tagged), ("mixing", mixing), ("general", general)):
        if not 0.0 <= v <= 1.0:
            raise InvalidArgumentError(f"{what} must be in [0, 1], got {v!r}")
    if not 0.0 <= overlap <= 0.8:
        raise InvalidArgumentError(f"overlap must be in [0, 0.8], got {overlap!r}")
    check_shape(core_fraction, attach)
    n_core = max(2, int(round(core_fraction * n)))
    if topics is None:
        topics = max(1, min(hashtags // 20, n_core // 50))
    if hashtags < 1 or not 1 <= topics <= min(hashtags, n_core):
        raise InvalidArgumentError(
            f"need 1 <= topics <= hashtags and topics <= core users ({n_core:,}); got "
            f"hashtags={hashtags:,}, topics={topics:,}"
        )
    idt = index_dtype(n)
    rng = np.random.Generator(stream(seed, _KEY_SHAPES))
    star_sizes, chain_sizes, n_attach, m_core = plan_groups(rng, n, m, n_core, attach, "mentions")

    # topics: Zipf-weighted sizes; core users in 1-3 of them; every topic has a user and
    # a hashtag
    trng = np.random.Generator(stream(seed, _KEY_TOPICS))
    topic_of = weighted_sampler(trng, zipf_weights(trng, topics, topic_exponent))
    members = memberships(trng, topic_of, n_core, topics, overlap)
    tag_topic = hashtag_topics(trng, topic_of, hashtags, topics)

    crng = np.random.Generator(stream(seed, _KEY_CORE))
    core = _core_mentions(crng, m, m_core, members, topics, mixing, hub_exponent, sender_exponent)
    src, dst, topic, hubs, topic_hubs = core

    # stars, chains and attaching mentions (as in mention_edges), each group in a topic
    heads, group = stars_and_chains(rng, src, dst, m_core, n_core, star_sizes, chain_sizes)
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
    grng = np.random.Generator(stream(seed, _KEY_TAGS))
    tag_ptr, tag_ids = draw_hashtags(grng, topic, tag_topic, topics, tagged, general, tag_exponent)
    del topic

    # planted truth, then random user ids
    perm = np.random.Generator(stream(seed, _KEY_PERM)).permutation(n).astype(idt)
    group_size = np.concatenate([star_sizes, chain_sizes])
    uptr, _, mem_topic = members
    planted = planted_topics(perm, uptr, mem_topic, group_topic, group_size, tag_topic, topics)
    return MentionTweets(perm[src], perm[dst], tag_ptr, tag_ids, tag_names(hashtags), planted)


def mention_data(n: int, m: int, **kw):
    """``(mentions, planted)``: :func:`mention_tweets` as a
    :class:`~hpgraph.io.mentions.Mentions` (with its user graph) and the
    :class:`~hpgraph.generators.mention.PlantedTopics`."""
    from hpgraph.io.mentions import Mentions

    t = mention_tweets(n, m, **kw)
    mentions = Mentions.from_arrays(
        t.src, t.dst, t.tag_ptr, t.tag_ids, t.tag_names, n=n, name=f"mentions-{n}-{m}"
    )
    return mentions, t.planted
