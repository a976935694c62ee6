"""The hashtags of :func:`~hpgraph.generators.mention.mention_tweets`: Zipf popularity by
id (``tag000...`` is the most used), each hashtag in one topic (:func:`hashtag_topics`);
a share of the mentions carries Geometric(0.65) hashtags from its topic or, now and
then, from all (:func:`draw_hashtags`)."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.generators.mention._alias import (
    alias_one,
    segment_sampler,
    segments,
    weighted_sampler,
)
from hpgraph.graph._rows import insert_distinct

__all__ = ["hashtag_topics", "draw_hashtags", "tag_names"]


def hashtag_topics(rng, topic_of, hashtags, topics):
    """The topic of every hashtag: every topic owns one (a random hashtag), the rest are
    drawn by ``topic_of`` (the topics' weights)."""
    tag_topic = topic_of(hashtags)
    tag_topic[rng.permutation(hashtags)[:topics]] = np.arange(topics)
    return tag_topic


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
                x = alias_one(anywhere, 0, rng.random())
            else:
                x = alias_one(in_topic, topic[i], rng.random())
            o = insert_distinct(out, a, o, x)
        ptr[i + 1] = o
    return ptr, out[:o].copy()


def draw_hashtags(rng, topic, tag_topic, topics, tagged, general, exponent):
    """``(tag_ptr, tag_ids)``: mention i's hashtags ``tag_ids[tag_ptr[i]:tag_ptr[i + 1]]``
    (ascending, distinct), given the mentions' ``topic`` and the hashtags' ``tag_topic``;
    hashtag r weighs ``(r + 1) ** -exponent``, within its topic and among all."""
    tag_w = np.arange(1, tag_topic.shape[0] + 1, dtype=np.float64) ** -exponent
    tag_order, tag_seg = segments(tag_topic, topics)
    in_topic = segment_sampler(rng, tag_seg, tag_w[tag_order], tag_order)
    anywhere = weighted_sampler(rng, tag_w)
    return _tag_kernel(rng, topic, tagged, general, in_topic.tables, anywhere.tables)


def tag_names(hashtags):
    """``tag0``, ``tag1``... zero-padded to the width of the largest id."""
    width = len(str(hashtags - 1))
    return [f"tag{r:0{width}d}" for r in range(hashtags)]
