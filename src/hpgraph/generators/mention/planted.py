"""The planted topics of :func:`~hpgraph.generators.mention.mention_tweets`: which topics
every core user belongs to (:func:`memberships`), and the truth returned with the
mentions (:class:`PlantedTopics`, built by :func:`planted_topics` in the final user
ids)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS
from hpgraph.generators.mention._alias import segments

__all__ = ["PlantedTopics", "memberships", "planted_topics"]


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
        order, ptr = segments(self.tag_topic, self.num_topics)
        return ptr, order.astype(np.int32)


def memberships(rng, topic_of, n_core, topics, overlap):
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


def planted_topics(perm, uptr, mem_topic, group_topic, group_size, tag_topic, topics):
    """The :class:`PlantedTopics` in the ids of ``perm`` (user u becomes ``perm[u]``): the
    core users' memberships ``(uptr, mem_topic)``, then one topic a star or chain user,
    its group's (``group_topic``, groups of ``group_size`` users after the core)."""
    n = perm.shape[0]
    n_core = uptr.shape[0] - 1
    user_ptr = np.zeros(n + 1, dtype=np.int64)
    user_ptr[1 : n_core + 1] = uptr[1:]
    user_ptr[n_core + 1 :] = uptr[-1] + np.arange(1, n - n_core + 1)
    user_topics = np.concatenate([mem_topic, np.repeat(group_topic, group_size)]).astype(np.int32)
    # rows past the last user (an empty star still yields a made-up head) are dropped
    user_topics = user_topics[: user_ptr[-1]]
    new_ptr, new_topics = _permute_rows(perm, user_ptr, user_topics)
    core = np.zeros(n, dtype=bool)
    core[perm[:n_core]] = True
    return PlantedTopics(topics, new_ptr, new_topics, tag_topic.astype(np.int32), core)
