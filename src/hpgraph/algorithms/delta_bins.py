"""One peer's buckets for delta-stepping (:mod:`~hpgraph.algorithms.delta_stepping`):
numpy arrays that compiled code pushes to with plain loads and stores, in place of a numba
typed list of arrays (a call into the list and reference counting per entry, which cost
the relaxation loop more than half its time on Kronecker scale 20).

A bucket is a chain of blocks of :data:`BLOCK` vertex ids taken from one pool: every block
of a chain is full but its last, so entry ``i`` of a chain is found from the block list.
Arrays (:func:`new_bins` makes them, :func:`reserve` grows them):

- ``pool``: the entries, block ``k`` at ``pool[k * BLOCK:(k + 1) * BLOCK]``, of the
  graph's vertex-id type (4 B per entry on graphs of fewer than 2^31 vertices);
- ``link``, ``fill``: per block, the next block of its chain (-1: none; for a free block
  the next free one) and the entries in it;
- ``head``, ``tail``, ``count``: per bucket, its first and last block (-1: empty) and its
  entries, in a ring: bucket ``b`` lives in slot ``b & (len - 1)`` (the length is a power
  of two). Every bucket a peer holds lies in ``current .. current + len - 1``
  (``current``: the bucket being processed; every push goes to the bucket of its own
  distance or above), so the ring needs the largest weight / delta + 2 slots at most,
  however long the distances grow (the buckets ever used, distance / delta, can be far
  more: an array of them took 4.7 GB per 2,000-vertex graph at delta 1e-6);
- ``meta``: [the first free block (-1: none), blocks ever used, free blocks].

A push (written out in the relaxation loop: a compiled call per push, its array arguments'
reference counts, cost more than the push) needs its bucket in the ring and, for a bucket
whose last block is full, a block (:func:`chain_block`). The relaxation loop makes room
once per vertex, before its edges (:func:`has_room`, else :func:`reserve`, which returns
the grown arrays), for everything its edges could push: the ring reaching the bucket of
its distance plus the largest weight, and a block per 256 pushes plus one per bucket they
can reach (:func:`blocks_for`), so the edge loop checks nothing.

Memory: the pool, 4 or 8 B per entry queued at once (blocks of consumed buckets are
reused), 16 B per block of 256 entries, 24 B per slot of the ring (at most twice the
largest weight / delta + 2); the room made for one vertex is at most a block per edge.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = [
    "BLOCK",
    "ring_slot",
    "new_bins",
    "blocks_for",
    "has_room",
    "reserve",
    "chain_block",
    "detach",
    "release",
    "take",
    "lowest",
]

#: entries per block
BLOCK = 256


def new_bins(dtype, blocks=64, buckets=64):
    """(pool, link, fill, head, tail, count, meta): empty buckets for vertex ids of
    ``dtype``; ``buckets``: the ring's first length, a power of two."""
    assert buckets > 0 and buckets & (buckets - 1) == 0, "the ring's length is a power of two"
    return (
        np.empty(blocks * BLOCK, dtype=dtype),
        np.full(blocks, -1, dtype=np.int64),
        np.zeros(blocks, dtype=np.int64),
        np.full(buckets, -1, dtype=np.int64),
        np.full(buckets, -1, dtype=np.int64),
        np.zeros(buckets, dtype=np.int64),
        np.array([-1, 0, 0], dtype=np.int64),
    )


@njit(**NUMBA_FLAGS)
def ring_slot(head, b):
    """Where bucket ``b`` lives in the ring (``head``, ``tail`` and ``count``)."""
    return b & (head.shape[0] - 1)


@njit(**NUMBA_FLAGS)
def blocks_for(pushes, lo, hi):
    """The most blocks ``pushes`` entries into buckets ``lo..hi`` can take: a block per
    ``BLOCK`` entries and one more per bucket (its last block may be full), never more
    than one per entry."""
    return min(pushes, pushes // BLOCK + (hi - lo) + 2)


@njit(**NUMBA_FLAGS)
def has_room(link, head, meta, current, b, blocks):
    """Whether the ring reaches from bucket ``current`` to bucket ``b`` and ``blocks``
    blocks can be taken without growing the arrays."""
    return b - current < head.shape[0] and blocks <= link.shape[0] - meta[1] + meta[2]


@njit(**NUMBA_FLAGS)
def chain_block(link, fill, head, tail, meta, b, t):
    """Take a block (the room for it was made) and chain it after the last block ``t``
    (-1: the bucket is empty) of the bucket in ring slot ``b``; returns it."""
    k = meta[0]
    if k >= 0:
        meta[0] = link[k]
        meta[2] -= 1
    else:
        k = meta[1]
        meta[1] = k + 1
    link[k] = -1
    fill[k] = 0
    if t < 0:
        head[b] = k
    else:
        link[t] = k
    tail[b] = k
    return k


@njit(**NUMBA_FLAGS)
def reserve(pool, link, fill, head, tail, count, meta, current, b, blocks):
    """The arrays, grown (doubled, or more where that is short) so that
    :func:`has_room` holds for buckets ``current..b`` and ``blocks`` blocks; contents
    kept (each bucket of the ring moved to its slot in the longer one)."""
    ring = head.shape[0]
    if b - current >= ring:
        size = 2 * ring
        while b - current >= size:
            size *= 2
        new_head = np.full(size, -1, dtype=np.int64)
        new_tail = np.full(size, -1, dtype=np.int64)
        new_count = np.zeros(size, dtype=np.int64)
        for k in range(current, current + ring):  # the buckets the ring can hold
            old, new = k & (ring - 1), k & (size - 1)
            new_head[new], new_tail[new], new_count[new] = head[old], tail[old], count[old]
        head, tail, count = new_head, new_tail, new_count
    short = blocks - (link.shape[0] - meta[1] + meta[2])
    if short > 0:
        size = max(2 * link.shape[0], link.shape[0] + short)
        link = _widen(link, size, -1)
        fill = _widen(fill, size, 0)
        bigger = np.empty(size * BLOCK, dtype=pool.dtype)
        bigger[: pool.shape[0]] = pool
        pool = bigger
    return pool, link, fill, head, tail, count


@njit(**NUMBA_FLAGS)
def _widen(a, size, value):
    out = np.full(size, value, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(**NUMBA_FLAGS)
def detach(head, tail, count, b):
    """Empty bucket ``b``; returns the first block of its chain (-1: it was empty), which
    stays readable until :func:`release`\\ d, block by block."""
    s = ring_slot(head, b)
    first = head[s]
    head[s] = tail[s] = -1
    count[s] = 0
    return first


@njit(**NUMBA_FLAGS)
def release(link, meta, k):
    """Return detached block ``k`` to the free blocks; returns the next block of its
    chain."""
    nxt = link[k]
    link[k] = meta[0]
    meta[0] = k
    meta[2] += 1
    return nxt


@njit(**NUMBA_FLAGS)
def take(pool, link, fill, head, tail, count, meta, b, out):
    """(``out``, or a larger array if it is too small; the entries): bucket ``b``'s
    entries copied to the front of it, the bucket emptied and its blocks freed."""
    s = count[ring_slot(head, b)]
    if out.shape[0] < s:
        out = np.empty(max(s, 2 * out.shape[0]), dtype=out.dtype)
    k = detach(head, tail, count, b)
    i = 0
    while k >= 0:
        f = fill[k]
        out[i : i + f] = pool[k * BLOCK : k * BLOCK + f]
        i += f
        k = release(link, meta, k)
    return out, s


@njit(**NUMBA_FLAGS)
def lowest(count, meta, current):
    """The lowest non-empty bucket from ``current`` on (the ring's first), -1 if none (at
    once when no block holds an entry: a peer left without work does not scan its ring
    every round)."""
    if meta[1] == meta[2]:  # every block ever used is free
        return -1
    mask = count.shape[0] - 1
    for i in range(current, current + count.shape[0]):
        if count[i & mask] > 0:
            return i
    return -1
