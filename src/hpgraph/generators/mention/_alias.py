"""Weighted sampling by Walker/Vose alias tables (O(1) a draw), one table per segment of
items, with compiled draws that the generators' loops call; and the Zipf weights and
segment pointers the mention data are drawn with."""

from __future__ import annotations

import numpy as np
from numba import njit

from hpgraph.config import NUMBA_FLAGS

__all__ = [
    "alias_one",
    "segment_sampler",
    "weighted_sampler",
    "zipf_weights",
    "segments",
]

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
def alias_one(tables, k, u):
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
    """:func:`alias_one` for every ``u[i]``, in segment ``seg[i]`` (0 if ``seg`` is
    empty)."""
    out = np.empty(u.shape[0], dtype=np.int64)
    for i in range(u.shape[0]):
        out[i] = alias_one(tables, seg[i] if seg.shape[0] else 0, u[i])
    return out


def segment_sampler(rng, seg_ptr, weights, items=None):
    """A function drawing, for each segment id in ``seg``, an item of that segment
    (``items[seg_ptr[k]:seg_ptr[k+1]]``, default their positions) with probability ~
    ``weights`` (alias method: O(1) a draw; every segment must be non-empty). Its
    ``tables`` feed the compiled loops' :func:`alias_one`."""
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


def weighted_sampler(rng, weights):
    """A function drawing ``size`` ids with probability ~ ``weights`` (alias method)."""
    one = segment_sampler(rng, np.array([0, weights.shape[0]]), weights)
    none = np.empty(0, dtype=np.int64)

    def draw(size):
        return _alias_draw(one.tables, none, rng.random(size))

    draw.tables = one.tables
    return draw


def zipf_weights(rng, k, exponent):
    """``(rank + 1) ** -exponent`` for a random ranking of ``0..k-1``."""
    w = np.empty(k, dtype=np.float64)
    w[rng.permutation(k)] = np.arange(1, k + 1, dtype=np.float64) ** -exponent
    return w


def segments(keys, k):
    """``(order, ptr)``: the positions of ``keys`` (ids in 0..k-1) sorted by key, stably,
    and the int64 pointers of the k segments: key j's positions are
    ``order[ptr[j]:ptr[j + 1]]``."""
    order = np.argsort(keys, kind="stable")
    ptr = np.zeros(k + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=k), out=ptr[1:])
    return order, ptr
